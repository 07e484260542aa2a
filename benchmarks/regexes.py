"""The regexes the benchmarks and differential tests share.

The first nine are outlines-core's benchmark suite (regex strings are facts of that
suite); the rest are JSON pieces and bounded repetitions that are hard on automaton builders.
"""

from typing import Iterator

REGEX_CASES = {
    "email": r"[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?",
    "complex_phone": "\\+?\\d{1,4}?[-.\\s]?\\(?\\d{1,3}?\\)?[-.\\s]?\\d{1,4}[-.\\s]?\\d{1,4}[-.\\s]?\\d{1,9}",
    "simple_phone": "\\+?[1-9][0-9]{7,14}",
    "date": r"([1-9]|0[1-9]|1[0-9]|2[0-9]|3[0-1])(\.|-|/)([1-9]|0[1-9]|1[0-2])(\.|-|/)([0-9][0-9]|19[0-9][0-9]|20[0-9][0-9])|([0-9][0-9]|19[0-9][0-9]|20[0-9][0-9])(\.|-|/)([1-9]|0[1-9]|1[0-2])(\.|-|/)([1-9]|0[1-9]|1[0-9]|2[0-9]|3[0-1])",
    "time": r"(0?[1-9]|1[0-2]):[0-5]\d\s?(am|pm)?",
    "ip": r"(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)",
    "url": r"(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?",
    "ssn": r"\d{3}-\d{2}-\d{4}",
    "complex_span_constrained_relation_extraction": "(['\"\\ ,]?((?:of|resulting|case|which|cultures|a|core|extreme|selflessness|spiritual|various|However|both|vary|in|other|secular|the|religious|among|moral|and|It|object|worldviews|altruism|traditional|material|aspect|or|life|beings|virtue|is|however|opposite|concern|an|practice|it|for|s|quality|religions|In|Altruism|animals|happiness|many|become|principle|human|selfishness|may|synonym)['\"\\ ,]?)+['\"\\ ,]?\\s\\|\\s([^|\\(\\)\n]{1,})\\s\\|\\s['\"\\ ,]?((?:of|resulting|case|which|cultures|a|core|extreme|selflessness|spiritual|various|However|both|vary|in|other|secular|the|religious|among|moral|and|It|object|worldviews|altruism|traditional|material|aspect|or|life|beings|virtue|is|however|opposite|concern|an|practice|it|for|s|quality|religions|In|Altruism|animals|happiness|many|become|principle|human|selfishness|may|synonym)['\"\\ ,]?)+['\"\\ ,]?(\\s\\|\\s\\(([^|\\(\\)\n]{1,})\\s\\|\\s([^|\\(\\)\n]{1,})\\))*\\n)*",
    "json_string": r'"([^"\\\x00-\x1F\x7F-\x9F]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"',
    "json_object": r'\{[ ]?"name"[ ]?:[ ]?"([^"\\\x00-\x1F\x7F-\x9F]|\\["\\/bfnrt])*"[ ]?,[ ]?"age"[ ]?:[ ]?(0|[1-9][0-9]*)[ ]?,[ ]?"tags"[ ]?:[ ]?\[[ ]?("[a-z]*"([ ]?,[ ]?"[a-z]*")*)?[ ]?\][ ]?\}',
}

HARD_REPETITIONS = {
    "alnum_1_64": r"[a-zA-Z0-9 ]{1,64}",
    "words_0_30": r"([a-z]+ ){0,30}[a-z]+",
    "json_string_0_20": r'"([^"\\\x00-\x1F\x7F-\x9F]|\\["\\/bfnrt]){0,20}"',
}

ASCII_CLASSES = {r"\d": "[0-9]", r"\w": "[a-zA-Z0-9_]", r"\s": r"[ \t\n\r\x0b\x0c]"}


def pattern_pieces(regex: str) -> Iterator[tuple[str, bool]]:
    """(piece, inside a class) for each piece of a regex's text: an escape (a backslash and the
    character after it, or a whole property escape `\\p{...}`) or one character. The rewrites
    of regex texts below and in the benchmarks read a text through it."""
    i, in_class = 0, False
    while i < len(regex):
        ch = regex[i]
        if ch == "\\":
            end = regex.find("}", i) + 1 if regex[i + 1:i + 3] in ("p{", "P{") else 0
            piece = regex[i:end or i + 2]
            yield piece, in_class
            i += len(piece)
            continue
        yield ch, in_class
        if ch == "[" and not in_class:
            in_class = True
        elif ch == "]" and in_class:
            in_class = False
        i += 1


def ascii_version(regex: str) -> str:
    """The regex with \\d, \\w, \\s spelled as ASCII classes, so engines with other Unicode tables agree."""
    out = []
    for piece, in_class in pattern_pieces(regex):
        body = ASCII_CLASSES.get(piece)
        out.append(piece if body is None else body[1:-1] if in_class else body)
    return "".join(out)
