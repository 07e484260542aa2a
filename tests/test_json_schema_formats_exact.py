"""`format` regexes against independent oracles: ipaddress, uuid, datetime, jsonschema's
FormatChecker where it implements the format, and small checkers written here from each RFC's
ABNF; hypothesis strings are drawn from each format's alphabet. Also format + pattern + length."""

from __future__ import annotations

import datetime
import ipaddress
import json
import re
import string
import uuid
import warnings
from functools import lru_cache

import jsonschema
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import build_regex_from_schema, compile_json_schema
from grammar_oracle import lark_parser

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHECKER = jsonschema.FormatChecker()


@lru_cache(maxsize=None)
def compiled(fmt: str, extra: str = "{}") -> re.Pattern:
    return re.compile(build_regex_from_schema({"type": "string", "format": fmt, **json.loads(extra)}))


def ok(fmt: str, text: str, **extra) -> bool:
    return compiled(fmt, json.dumps(extra, sort_keys=True)).fullmatch(json.dumps(text, ensure_ascii=False)) is not None


def texts(alphabet: str, max_size: int = 24):
    return st.text(alphabet=alphabet, max_size=max_size)


# ---- oracles written from the ABNF -----------------------------------------------------------------

DIGITS = set(string.digits)
HEX = set(string.hexdigits)


def rfc3339_full_date(s: str) -> bool:
    if len(s) != 10 or s[4] != "-" or s[7] != "-" or not set(s[:4] + s[5:7] + s[8:]) <= DIGITS:
        return False
    y, m, d = int(s[:4]), int(s[5:7]), int(s[8:])
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return 1 <= m <= 12 and 1 <= d <= days[m - 1]


def two(s: str, hi: int) -> bool:
    return len(s) == 2 and set(s) <= DIGITS and int(s) <= hi


def rfc3339_full_time(s: str) -> bool:
    if len(s) < 9 or s[2] != ":" or s[5] != ":":
        return False
    if not (two(s[:2], 23) and two(s[3:5], 59) and two(s[6:8], 60)):
        return False
    rest = s[8:]
    if rest.startswith("."):
        i = 1
        while i < len(rest) and rest[i] in DIGITS:
            i += 1
        if i == 1:
            return False
        rest = rest[i:]
    if rest in ("Z", "z"):
        return True
    return (len(rest) == 6 and rest[0] in "+-" and rest[3] == ":" and two(rest[1:3], 23) and two(rest[4:], 59))


def rfc3339_date_time(s: str) -> bool:
    return len(s) > 11 and s[10] in "Tt" and rfc3339_full_date(s[:10]) and rfc3339_full_time(s[11:])


def rfc3339_duration(s: str) -> bool:
    """RFC 3339 Appendix A, by hand: P, then date parts Y M D in order (not D then more) or W
    alone, then optionally T with H M S in order, each part digits then its letter."""
    s = s.upper()
    if not s.startswith("P"):
        return False
    body, _, time = s[1:].partition("T")
    if "T" in time:
        return False

    def parts(text: str) -> list[str] | None:
        out, num = [], ""
        for ch in text:
            if ch in DIGITS:
                num += ch
            elif num:
                out.append(ch)
                num = ""
            else:
                return None
        return None if num else out

    dp, tp = parts(body), parts(time)
    if dp is None or tp is None:
        return False
    if "T" in s[1:] and not tp:
        return False
    if dp == ["W"]:
        return not tp and "T" not in s
    if not dp and not tp:
        return False
    orders = (["Y", "M", "D"], ["H", "M", "S"])
    for got, order in zip((dp, tp), orders):
        idx = [order.index(x) if x in order else -1 for x in got]
        if -1 in idx or idx != sorted(set(idx)) or (idx and idx != list(range(idx[0], idx[-1] + 1))):
            return False
    return True


def rfc1123_hostname(s: str) -> bool:
    if not 1 <= len(s) <= 253:
        return False
    ld = set(string.ascii_letters + string.digits)
    for label in s.split("."):
        if not 1 <= len(label) <= 63 or label[0] not in ld or label[-1] not in ld:
            return False
        if not set(label) <= ld | {"-"}:
            return False
    return True


UNRESERVED = set(string.ascii_letters + string.digits + "-._~")
SUB_DELIMS = set("!$&'()*+,;=")


def ucschar(c: str) -> bool:
    cp = ord(c)
    if 0xA0 <= cp <= 0xD7FF or 0xF900 <= cp <= 0xFDCF or 0xFDF0 <= cp <= 0xFFEF:
        return True
    return 0x10000 <= cp <= 0xEFFFD and (cp & 0xFFFF) <= 0xFFFD and not 0xE0000 <= cp < 0xE1000


def iprivate(c: str) -> bool:
    cp = ord(c)
    return 0xE000 <= cp <= 0xF8FF or (0xF0000 <= cp <= 0x10FFFD and (cp & 0xFFFF) <= 0xFFFD)


def chars_ok(s: str, extra: str, iri: bool, private: bool = False) -> bool:
    i = 0
    while i < len(s):
        c = s[i]
        if c == "%":
            if len(s) < i + 3 or not set(s[i + 1:i + 3]) <= HEX:
                return False
            i += 3
            continue
        if not (c in UNRESERVED or c in SUB_DELIMS or c in extra or (iri and ucschar(c)) or (private and iprivate(c))):
            return False
        i += 1
    return True


def rfc3986(s: str, iri: bool = False, reference: bool = False) -> bool:
    """URI / IRI (or -reference) by splitting at the delimiters RFC 3986 §3 names."""
    i = s.find(":")
    scheme = s[:i] if i > 0 else ""
    absolute = bool(scheme) and scheme[0] in string.ascii_letters and all(
        c in string.ascii_letters + string.digits + "+-." for c in scheme)
    if not absolute and not reference:
        return False
    rest = s[i + 1:] if absolute else s
    rest, hash_, frag = rest.partition("#")
    if hash_ and not chars_ok(frag, ":@/?", iri):
        return False
    rest, q, query = rest.partition("?")
    if q and not chars_ok(query, ":@/?", iri, private=iri):
        return False
    if rest.startswith("//"):
        auth, slash, path = rest[2:].partition("/")
        if not chars_ok(path, ":@/", iri):
            return False
        if "@" in auth:
            user, _, auth = auth.partition("@")
            if not chars_ok(user, ":", iri):
                return False
        if auth.startswith("["):
            end = auth.find("]")
            if end < 0:
                return False
            lit, port = auth[1:end], auth[end + 1:]
            if port and (port[0] != ":" or not set(port[1:]) <= DIGITS):
                return False
            if lit[:1] in ("v", "V"):
                ver, dot, tail = lit[1:].partition(".")
                return bool(ver and set(ver) <= HEX and dot and tail and all(
                    c in UNRESERVED or c in SUB_DELIMS or c == ":" for c in tail))
            try:
                ipaddress.IPv6Address(lit)
            except ValueError:
                return False
            return "%" not in lit
        host, colon, port = auth.rpartition(":") if ":" in auth else (auth, "", "")
        return chars_ok(host, "", iri) and set(port) <= DIGITS
    segments = rest.split("/")
    if not absolute and ":" in segments[0]:
        return False  # path-noscheme
    return chars_ok(rest, ":@/", iri)


def rfc5321_mailbox(s: str) -> bool:
    """RFC 5321 Mailbox by hand (dot-string or quoted-string, domain or address literal)."""
    atext = set(string.ascii_letters + string.digits + "!#$%&'*+-/=?^_`{|}~")
    if s.startswith('"'):
        i = 1
        while i < len(s) and s[i] != '"':
            if s[i] == "\\":
                if i + 1 >= len(s) or not 32 <= ord(s[i + 1]) <= 126:
                    return False
                i += 2
            elif 32 <= ord(s[i]) <= 126:
                i += 1
            else:
                return False
        if i >= len(s) or s[i + 1:i + 2] != "@":
            return False
        domain = s[i + 2:]
    else:
        local, at, domain = s.partition("@")
        if not at or any(not a or not set(a) <= atext for a in local.split(".")):
            return False
    if domain.startswith("[") and domain.endswith("]"):
        lit = domain[1:-1]
        if snum_quad(lit):
            return True
        if lit[:5].lower() == "ipv6:":
            return smtp_ipv6(lit[5:])
        tag, colon, content = lit.partition(":")
        ldh = set(string.ascii_letters + string.digits + "-")
        return (bool(tag) and set(tag) <= ldh and tag[-1] != "-" and bool(colon) and bool(content)
                and all(33 <= ord(c) <= 90 or 94 <= ord(c) <= 126 for c in content))
    ld = set(string.ascii_letters + string.digits)
    return all(p and p[0] in ld and p[-1] in ld and set(p) <= ld | {"-"} for p in domain.split("."))


def snum_quad(s: str) -> bool:
    parts = s.split(".")
    return len(parts) == 4 and all(1 <= len(p) <= 3 and set(p) <= DIGITS and int(p) <= 255 for p in parts)


def smtp_ipv6(a: str) -> bool:
    v4 = "." in a
    if v4:
        i = a.rfind(":")
        if i < 0 or not snum_quad(a[i + 1:]):
            return False
        a = a[:i + 1] if a[:i + 1].endswith("::") else a[:i]
    most, full = (4, 6) if v4 else (6, 8)

    def hex4(g: str) -> bool:
        return 1 <= len(g) <= 4 and set(g) <= HEX

    if "::" in a:
        if a.count("::") > 1:
            return False
        left, right = a.split("::")
        groups = (left.split(":") if left else []) + (right.split(":") if right else [])
        return all(map(hex4, groups)) and len(groups) <= most
    groups = a.split(":")
    return len(groups) == full and all(map(hex4, groups))


def rfc6901(s: str) -> bool:
    if s and not s.startswith("/"):
        return False
    return re.search(r"~(?![01])", s) is None


# ---- dates and times ---------------------------------------------------------------------------------


@SETTINGS
@given(texts("0123456789-:.TtZz+ ", 30))
@example("1998-12-31T23:59:60Z")
@example("1998-12-31T15:59:60.123-08:00")
@example("2000-02-29T00:00:00z")
@example("1900-02-29T00:00:00Z")
def test_date_time_matches_rfc3339(text):
    assert ok("date-time", text) == rfc3339_date_time(text), text


@SETTINGS
@given(st.datetimes(), st.integers(-1439, 1439))
def test_every_datetime_isoformat_is_a_date_time(naive, minutes):
    dt = naive.replace(tzinfo=datetime.timezone(datetime.timedelta(minutes=minutes)))
    text = dt.isoformat()
    assert ok("date-time", text), text
    assert ok("date", text[:10]) and ok("time", text[11:])
    assert datetime.datetime.fromisoformat(text) == dt


@SETTINGS
@given(texts("0123456789:.Zz+-", 18))
@example("23:59:60Z")
@example("24:00:00Z")
@example("08:30:00+23:59")
@example("08:30:00+24:00")
def test_time_matches_rfc3339(text):
    assert ok("time", text) == rfc3339_full_time(text), text


@SETTINGS
@given(texts("0123456789-", 11))
def test_date_matches_rfc3339_and_format_checker(text):
    want = rfc3339_full_date(text)
    assert ok("date", text) == want, text
    assert CHECKER.conforms(text, "date") == want, text  # jsonschema: regex + date.fromisoformat


def test_time_deviations_of_jsonschema_format_checker():
    """jsonschema's "time" checker (without rfc3339-validator) is draft 3's %H:%M:%S."""
    assert CHECKER.conforms("12:00:00", "time") and not ok("time", "12:00:00")
    assert not CHECKER.conforms("12:00:00Z", "time") and ok("time", "12:00:00Z")


@SETTINGS
@given(texts("0123PYMWDTHSpt", 12))
@example("P1Y2M3DT4H5M6S")
@example("P1W")
@example("PT1H30S")
@example("P1Y3D")
@example("P1DT")
@example("P")
def test_duration_matches_rfc3339_appendix_a(text):
    assert ok("duration", text) == rfc3339_duration(text), text


# ---- addresses ---------------------------------------------------------------------------------------


@SETTINGS
@given(st.one_of(texts("0123456789.", 18), st.integers(0, 2**32 - 1).map(lambda n: str(ipaddress.IPv4Address(n)))))
@example("01.2.3.4")
@example("256.1.1.1")
def test_ipv4_matches_ipaddress_and_format_checker(text):
    try:
        ipaddress.IPv4Address(text)
        want = True
    except ValueError:
        want = False
    assert ok("ipv4", text) == want == CHECKER.conforms(text, "ipv4"), text


def _ipv6_samples():
    addr = st.integers(0, 2**128 - 1).map(ipaddress.IPv6Address)
    return st.one_of(texts("0123456789abcdefABCDEF:.", 45), addr.map(lambda a: a.compressed),
                     addr.map(lambda a: a.exploded),
                     st.tuples(addr, st.integers(0, 2**32 - 1)).map(
                         lambda t: t[0].exploded.rsplit(":", 2)[0] + ":" + str(ipaddress.IPv4Address(t[1]))),
                     st.integers(0, 2**32 - 1).map(lambda n: "::ffff:" + str(ipaddress.IPv4Address(n))))


@SETTINGS
@given(_ipv6_samples())
@example("1:2:3:4:5:6:7::")
@example("::1:2:3:4:5:6:7")
@example("1::2:3:4:5:6:7")
@example("::1.2.3.04")
@example("fe80::1%eth0")
def test_ipv6_matches_ipaddress_and_format_checker(text):
    try:
        ipaddress.IPv6Address(text)
        want = "%" not in text  # RFC 4291 text forms have no zone index (RFC 6874)
    except ValueError:
        want = False
    assert ok("ipv6", text) == want == CHECKER.conforms(text, "ipv6"), text


@SETTINGS
@given(st.one_of(st.uuids().map(str), st.uuids().map(lambda u: str(u).upper()), texts("0123456789abcdefABCDEF-_+{}", 38)))
@example("+2345678-1234-1234-1234-123456789012")
def test_uuid_matches_rfc9562_text_form(text):
    try:
        uuid.UUID(text)
        parsed = True
    except ValueError:
        parsed = False
    want = parsed and len(text) == 36 and all((c == "-") == (i in (8, 13, 18, 23)) for i, c in enumerate(text)) \
        and set(text.replace("-", "")) <= HEX
    assert ok("uuid", text) == want, text
    if want:
        assert CHECKER.conforms(text, "uuid")


def test_uuid_deviations_of_jsonschema_format_checker():
    """jsonschema's uuid checker parses with int(): a sign or an underscore passes."""
    for text in ("+2345678-1234-1234-1234-123456789012", "1_345678-1234-1234-1234-123456789012"):
        assert CHECKER.conforms(text, "uuid") and not ok("uuid", text)


# ---- names -------------------------------------------------------------------------------------------


@SETTINGS
@given(st.one_of(texts("ab0-.", 30), st.lists(st.text("a-0", min_size=1, max_size=64), min_size=1, max_size=6)
                 .map(".".join)))
@example("a" * 63 + ".com")
@example("a" * 64 + ".com")
@example(".".join(["a" * 63] * 4)[:253])
@example(".".join(["a" * 63] * 4)[:254])
def test_hostname_matches_rfc1123(text):
    assert ok("hostname", text) == rfc1123_hostname(text), text


def test_hostname_total_length_is_253():
    name = ".".join(["a" * 61] * 4) + ".b"  # 249 characters
    assert len(name + "bcde") == 253 and ok("hostname", name + "bcde") and not ok("hostname", name + "bcdef")
    assert ok("hostname", "a.b", maxLength=3) and not ok("hostname", "a.bc", maxLength=3)


@SETTINGS
@given(texts('ab.@"\\[]:1 -!', 16))
@example('"joe bloggs"@example.com')
@example('"a\\"b"@c')
@example('"a\\\\"@c')
@example('"a"b"@c')
@example("joe.bloggs@[127.0.0.1]")
@example("joe.bloggs@[127.0.0.300]")
@example("a@[IPv6:::1]")
@example("a@[ipv6:1:2:3:4:5:6::7]")
@example("a@[IPv6:1:2:3:4:5:6:7:8]")
@example("a@[IPv6:::1:2:3:4:1.2.3.4]")
@example("a@[IPv6:1::2:3:4:1.2.3.4]")
@example("a@[x-y:stuff]")
@example("a@[IPv6:stuff]")
@example("a..b@c")
def test_email_matches_rfc5321_mailbox(text):
    assert ok("email", text) == rfc5321_mailbox(text), text
    if ok("email", text):
        assert CHECKER.conforms(text, "email")  # jsonschema only asks for an "@"


def test_email_quoted_local_part_is_escaped_in_the_json_text():
    rx = compiled("email")
    assert rx.fullmatch(r'"\"a\\\"b\"@c"')  # the JSON text of '"a\"b"@c'
    assert not rx.fullmatch(r'"\"a\"b\"@c"')


# ---- URIs, IRIs, templates, pointers ---------------------------------------------------------------

URI_ALPHABET = "ab:/?#[]@!$&'()*+,;=%1F.-_~ v\"\\"


@SETTINGS
@given(texts(URI_ALPHABET, 20))
@example("http://[::1]:80/a?b#c")
@example("http://[v1.x]/")
@example("http://[v1.]/")
@example("mailto:a@b")
@example("urn:isbn:0-486-27557-4")
@example("a:")
@example("//host")
@example("a%2")
@example("http://a b")
@example("http://a/%zz")
@example("a:b#c#d")
@example("1a:b")
@example("http://user@host:8080/p/a/t/h?query#frag")
def test_uri_and_uri_reference_match_rfc3986(text):
    assert ok("uri", text) == rfc3986(text), text
    assert ok("uri-reference", text) == rfc3986(text, reference=True), text


@SETTINGS
@given(texts("ab:/?#é\ue000\U0001f600\ufff0 ", 12))
@example("http://例え.テスト/パス?q=\ue000")
@example("http://a/\ue000")
def test_iri_and_iri_reference_match_rfc3987(text):
    assert ok("iri", text) == rfc3986(text, iri=True), text
    assert ok("iri-reference", text) == rfc3986(text, iri=True, reference=True), text
    if ok("uri", text):
        assert ok("iri", text)


@pytest.mark.parametrize("text,valid", [
    ("http://example.com/{id}", True), ("{+path}/here", True), ("{var:30}", True), ("{list*}", True),
    ("{x,y,z}", True), ("{#a.b}", True), ("{/a%20b}", True), ("{a:0}", False), ("{a:10000}", False),
    ("{}", False), ("{a", False), ("a}", False), ("{a..b}", False), ("%zz", False), ("{$a}", False),
    ("a b", False), ("\u00e9{x}", True),
])
def test_uri_template_rfc6570(text, valid):
    assert ok("uri-template", text) == valid, text


@SETTINGS
@given(texts("ab/~01\"\\\n", 12))
@example("/a~1b/~0")
@example("/a~2")
@example("a/b")
def test_json_pointer_matches_rfc6901(text):
    assert ok("json-pointer", text) == rfc6901(text), text


@pytest.mark.parametrize("text,valid,valid_2020", [
    ("0", True, True), ("1/a", True, True), ("0#", True, True), ("01", False, False), ("-1", False, False),
    ("0+1/a", False, True), ("2-3", False, True), ("0+01", False, False), ("0+1#", False, False), ("#", False, False),
    ("12/a~1b", True, True), ("1/~2", False, False), ("0-0", False, True), ("1+10/x", False, True),
])
def test_relative_json_pointer_by_draft(text, valid, valid_2020):
    rx7 = re.compile(build_regex_from_schema({"$schema": "http://json-schema.org/draft-07/schema#",
                                              "type": "string", "format": "relative-json-pointer"}))
    assert (rx7.fullmatch(json.dumps(text)) is not None) == valid
    assert ok("relative-json-pointer", text) == valid_2020


# ---- format with pattern and lengths ---------------------------------------------------------------


def validator(schema):
    return jsonschema.validators.validator_for(schema)(schema, format_checker=CHECKER)


@SETTINGS
@given(st.one_of(texts("ab@.com-", 14), st.emails()))
def test_email_with_max_length_and_pattern(text):
    schema = {"type": "string", "format": "email", "maxLength": 12, "pattern": "\\.com$"}
    rx = re.compile(build_regex_from_schema(schema))
    want = rfc5321_mailbox(text) and len(text) <= 12 and text.endswith(".com")
    assert (rx.fullmatch(json.dumps(text, ensure_ascii=False)) is not None) == want, text
    if want:
        assert validator(schema).is_valid(text)


@SETTINGS
@given(texts("ab1-_/", 12))
def test_pattern_with_lengths_beyond_one_repeat(text):
    schema = {"type": "string", "pattern": "^([\\w/-]|[\\w-][\\w/-]*[\\w-])$", "minLength": 2, "maxLength": 5}
    rx = re.compile(build_regex_from_schema(schema))
    assert (rx.fullmatch(json.dumps(text)) is not None) == validator(schema).is_valid(text), text


def test_fixed_width_formats_need_no_lookahead():
    for schema in ({"type": "string", "format": "date", "minLength": 10, "maxLength": 10},
                   {"type": "string", "format": "uuid", "maxLength": 36}):
        assert "(?=" not in build_regex_from_schema(schema)
    assert "(?=" not in build_regex_from_schema({"type": "string", "pattern": "^a+$", "maxLength": 3})
    with pytest.raises(UnsupportedSchemaError, match="accepts no value"):
        build_regex_from_schema({"type": "string", "format": "date", "maxLength": 9})
    with pytest.raises(UnsupportedSchemaError, match="accepts no value"):
        build_regex_from_schema({"type": "string", "format": "hostname", "minLength": 254})


def test_format_and_pattern_intersect():
    schema = {"type": "string", "format": "uri", "pattern": "^https?://"}
    rx = re.compile(build_regex_from_schema(schema))
    for text in ("https://a.b/c", "http://x", "ftp://a.b", "https://a b", "https:"):
        assert (rx.fullmatch(json.dumps(text)) is not None) == (rfc3986(text) and bool(re.match("https?://", text)))


def test_intersections_on_the_grammar_path_are_rules_or_refused():
    # small intersections become rules from their automaton: the same language as the regex path
    pytest.importorskip("lark")
    for schema, texts in (({"type": "string", "format": "email", "maxLength": 12},
                           ["a@b.cd", "a.b@example.org", "ab@cd", "@b.cd", "a@b..c", "a@[1.2.3.4]"]),
                          ({"type": "string", "format": "uri", "pattern": "^https:"},
                           ["https://a.b/c", "http://x", "https:", "https://a b", "https:x"])):
        grammar = compile_json_schema(schema, path="engine")
        rx = re.compile(compile_json_schema(schema, path="regex").regex)
        import lark

        p = lark_parser(grammar)  # the engine's recogniser, read through Lark's parser interface
        for text in texts:
            try:
                p.parse(json.dumps(text))
                ok = True
            except lark.exceptions.LarkError:
                ok = False
            assert ok == (rx.fullmatch(json.dumps(text)) is not None), text
    # too large an automaton (hostname's 253 characters): refused by keyword, dropped when lenient
    for schema, kw in (({"type": "string", "format": "hostname"}, "format"),
                       ({"type": "string", "format": "hostname", "maxLength": 200}, "maxLength")):
        with pytest.raises(UnsupportedSchemaError) as info:
            compile_json_schema(schema, path="engine")
        assert info.value.keyword == kw and "lookahead" in str(info.value) and "path='regex'" in str(info.value)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert compile_json_schema(schema, path="engine", lenient=True).engine
        assert any(kw in str(w.message) for w in caught)


@pytest.mark.parametrize("fmt", ["regex", "idn-email", "idn-hostname"])
def test_known_unsupported_formats_are_refused_by_name(fmt):
    with pytest.raises(UnsupportedSchemaError) as info:
        build_regex_from_schema({"properties": {"x": {"type": "string", "format": fmt}}})
    assert info.value.keyword == "format" and info.value.pointer == "#/properties/x/format" and fmt in str(info.value)
    with pytest.warns(UserWarning, match="format"):
        assert build_regex_from_schema({"type": "string", "format": fmt}, lenient=True)


def test_unknown_and_openapi_formats_are_annotations():
    for fmt in ("int32", "int64", "float", "double", "my-own"):
        assert ok(fmt, "anything")
    rx = re.compile(build_regex_from_schema({"type": "integer", "format": "int32"}))
    assert rx.fullmatch("12345678901")  # format is an annotation: no int32 range is implied


@pytest.mark.parametrize("schema,text", [
    ({"type": "string", "format": "uri"}, "http://a/b"),
    ({"type": "string", "format": "email"}, '"a\\"b"@c'),
    ({"type": "string", "pattern": '^\\\\"$'}, '\\"'),
])
def test_engine_path_lexemes_with_slash_and_escaped_quote(schema, text):
    """'/' and a backslash before '"' are read as written (once a trap of Lark's /.../ terminals)."""
    compiled = compile_json_schema(schema, path="engine")
    assert compiled.accepts(json.dumps(text))
    assert not compiled.accepts(json.dumps(text + "\\"))


GUIDE_TOKENS = ['"', "a", "b", ".", "-", "@", "ab", "a.", '"a', 'b"', "1", ":"]


@pytest.mark.parametrize("schema,alphabet,max_len", [
    ({"type": "string", "format": "hostname", "maxLength": 4}, 'ab.-"', 7),
    ({"type": "string", "format": "email", "maxLength": 5}, 'ab@."', 8),
    ({"type": "string", "format": "uri", "pattern": "^a:", "maxLength": 4}, 'ab:"', 7),
])
def test_lookahead_schemas_through_guides(schema, alphabet, max_len):
    """Guide.from_json_schema (tokenguide's own lookahead compiler) against re.fullmatch, for every
    text over `alphabet` up to `max_len` characters, spelled one character per token."""
    from itertools import product

    from tokenguide import Guide, Vocabulary

    mapping = {t: i for i, t in enumerate(GUIDE_TOKENS)}
    mapping["<eos>"] = len(GUIDE_TOKENS)
    vocab = Vocabulary(len(GUIDE_TOKENS), mapping)
    rx = re.compile(build_regex_from_schema(schema))
    guide = Guide.from_json_schema(schema, vocab)
    accepted = 0
    for n in range(max_len + 1):
        for chars in product(alphabet, repeat=n):
            text = "".join(chars)
            want = rx.fullmatch(text) is not None
            ids = [mapping[c] for c in text]
            guide.reset()
            taken = guide.accepts_tokens(ids)
            if taken:
                for t in ids:
                    guide.advance(t)
            assert (taken and guide.is_finished()) == want, text
            accepted += want
    assert accepted > 3


@SETTINGS
@given(st.one_of(st.uuids().map(str), texts("0123456789abcdef-", 40)))
@example("0123456789abcdef")
def test_anchored_alternatives_with_a_common_prefix(text):
    """re's parser reads "^A$|^B$" as "^(?:A$|B$)"; both alternatives stay anchored."""
    schema = {"type": "string", "maxLength": 36, "pattern": "^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$|^[0-9a-f]{16}$"}
    rx = re.compile(build_regex_from_schema(schema))
    assert (rx.fullmatch(json.dumps(text)) is not None) == validator(schema).is_valid(text), text
