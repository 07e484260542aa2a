"""The regexes the benchmarks and differential tests share.

The first nine are outlines-core's benchmark suite (regex strings are facts of that
suite); the rest are JSON pieces and bounded repetitions that are hard on automaton builders.
"""

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


def ascii_version(regex: str) -> str:
    """The regex with \\d, \\w, \\s spelled as ASCII classes, so engines with other Unicode tables agree."""
    out = []
    i = 0
    in_class = False
    while i < len(regex):
        ch = regex[i]
        if ch == "\\" and i + 1 < len(regex):
            pair = regex[i : i + 2]
            if pair in ASCII_CLASSES:
                body = ASCII_CLASSES[pair]
                out.append(body[1:-1] if in_class else body)
            else:
                out.append(pair)
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
        elif ch == "]" and in_class:
            in_class = False
        out.append(ch)
        i += 1
    return "".join(out)
