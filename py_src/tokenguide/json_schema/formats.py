"""`format` values as regexes over the string content (between the quotes).

date/time/date-time follow RFC 3339 (leap years and leap seconds, time needs an offset), ipv4 is
a dotted quad without leading zeros, ipv6 the RFC 4291 text forms, uuid any-case hex, hostname
RFC 1123 labels of at most 63 characters, email ``local@labels`` with RFC 5322 atoms, uri
``scheme:`` followed by URI characters. Formats a validator may check but that are not here are
refused; unknown formats are annotations (KNOWN_FORMATS tells them apart).
"""

from __future__ import annotations

__all__ = ["FORMATS", "FORMAT_WIDTH", "KNOWN_FORMATS"]

# Standard formats a validator may check; unknown formats are annotations.
KNOWN_FORMATS = frozenset({
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer", "regex",
})

_DAY_31 = "(?:0[1-9]|[12][0-9]|3[01])"
_DATE = ("[0-9]{4}-(?:(?:0[13578]|1[02])-" + _DAY_31 + "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
         "|02-(?:0[1-9]|1[0-9]|2[0-8]))"
         "|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29")
_TIME = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = f"{_OCTET}(?:\\.{_OCTET}){{3}}"
_H16 = "[0-9A-Fa-f]{1,4}"
_LS32 = f"(?:{_H16}:{_H16}|{_IPV4})"


def _ipv6() -> str:
    h = _H16
    forms = [
        f"(?:{h}:){{6}}{_LS32}",
        f"::(?:{h}:){{5}}{_LS32}",
        f"(?:{h})?::(?:{h}:){{4}}{_LS32}",
        f"(?:(?:{h}:){{0,1}}{h})?::(?:{h}:){{3}}{_LS32}",
        f"(?:(?:{h}:){{0,2}}{h})?::(?:{h}:){{2}}{_LS32}",
        f"(?:(?:{h}:){{0,3}}{h})?::{h}:{_LS32}",
        f"(?:(?:{h}:){{0,4}}{h})?::{_LS32}",
        f"(?:(?:{h}:){{0,5}}{h})?::{h}",
        f"(?:(?:{h}:){{0,6}}{h})?::",
    ]
    return "(?:" + "|".join(forms) + ")"


_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
FORMATS = {
    "date": f"(?:{_DATE})",
    "time": _TIME,
    "date-time": f"(?:{_DATE})[Tt]{_TIME}",
    "uuid": "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
    "ipv4": _IPV4,
    "ipv6": _ipv6(),
    "hostname": f"{_LABEL}(?:\\.{_LABEL})*",
    "email": "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@" + f"{_LABEL}(?:\\.{_LABEL})*",
    "uri": "[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\\-._~:/?#\\[\\]@!$&'()*+,;=%]+",
}
# Fixed lengths of formats, for minLength/maxLength checks: (min, max or None).
FORMAT_WIDTH = {"date": (10, 10), "uuid": (36, 36), "ipv4": (7, 15)}
