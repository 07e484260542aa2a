"""Integer and decimal ranges as regexes over canonical JSON number spellings.

`int_range_regex` writes the canonical integers of a range; `integer_regex` and `number_regex`
turn minimum/maximum/exclusive bounds and multipleOf into the regexes the compiler uses
(see the package docstring for which spellings each accepts). Unsupported cases are reported
through an `unsupported(keyword, why)` callback, so lenient mode can go on without them.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Callable

from .multiples import MAX_MULTIPLE_CHARS, digit_trie, multiples_of
from .text import NUMBER, alt, balanced_group, cat, group, lit, rep

Unsupported = Callable[[str, str], None]


def digits_range(lo: str, hi: str) -> str:
    """Regex for digit strings of equal length between lo and hi (inclusive)."""
    if lo == hi:
        return lo
    if len(lo) == 1:
        return f"[{lo}-{hi}]" if int(hi) > int(lo) + 1 else f"[{lo}{hi}]"
    if lo[0] == hi[0]:
        return lo[0] + digits_range(lo[1:], hi[1:])
    n = len(lo) - 1
    if lo[1:] == "0" * n and hi[1:] == "9" * n:
        return digits_range(lo[0], hi[0]) + rep("[0-9]", n, n)
    parts = []
    if lo[1:] == "0" * n:
        mid_lo = int(lo[0])
    else:
        parts.append(lo[0] + digits_range(lo[1:], "9" * n))
        mid_lo = int(lo[0]) + 1
    if hi[1:] == "9" * n:
        mid_hi = int(hi[0])
        tail = None
    else:
        mid_hi = int(hi[0]) - 1
        tail = hi[0] + digits_range("0" * n, hi[1:])
    if mid_lo <= mid_hi:
        parts.append(digits_range(str(mid_lo), str(mid_hi)) + rep("[0-9]", n, n))
    if tail:
        parts.append(tail)
    return alt(parts)  # type: ignore[return-value]


def nonneg_int_range(lo: int, hi: int | None) -> str | None:
    """Canonical decimal naturals in [lo, hi] (hi None = unbounded)."""
    lo = max(lo, 0)
    if hi is not None and hi < lo:
        return None
    parts: list[str] = []
    if lo == 0:
        parts.append("0")
        lo = 1
        if hi == 0:
            return "0"
    ls = len(str(lo))
    hs = len(str(hi)) if hi is not None else None
    L = ls
    while hs is None or L <= hs:
        a = max(lo, 10 ** (L - 1))
        b = 10 ** L - 1 if hi is None else min(hi, 10 ** L - 1)
        if a == 10 ** (L - 1) and (hi is None or b == 10 ** L - 1):
            # all L-digit numbers, and maybe all longer ones too
            if hi is None:
                parts.append("[1-9]" + rep("[0-9]", L - 1, None))
                break
            top = hs if hi == 10 ** hs - 1 else hs - 1
            parts.append("[1-9]" + rep("[0-9]", L - 1, top - 1))
            L = top + 1
            continue
        parts.append(digits_range(str(a), str(b)))
        L += 1
    return alt(parts)


def int_range_regex(lo: int | None, hi: int | None) -> str | None:
    """Regex for canonical JSON integers n with lo <= n <= hi (None = unbounded); None if empty."""
    if lo is not None and hi is not None and lo > hi:
        return None
    parts: list[str | None] = []
    if lo is None or lo < 0:
        # negatives: -m with m in [max(1, -hi), -lo]
        mlo = 1 if hi is None or hi >= 0 else -hi
        mhi = None if lo is None else -lo
        neg = nonneg_int_range(mlo, mhi)
        if neg is not None:
            parts.append("-" + neg)
    if hi is None or hi >= 0:
        parts.append(nonneg_int_range(0 if lo is None else max(lo, 0), hi))
    return alt(parts)


def _tail(budget: int | None) -> str:
    """Any digit string, or with `budget`: at most that many significant digits, then zeros."""
    if budget is None:
        return "[0-9]*"
    if budget == 0:
        return "0*"
    return rep("[0-9]", 0, budget) + "0*"


def _zero_only(lower_ok: bool, upper_ok: bool) -> tuple[str | None, bool]:
    """Fraction digits that must all be zero (no budget left): allowed iff 0 is in range."""
    return ("0+", True) if lower_ok and upper_ok else (None, False)


def _frac_cmp(d: str, op: str, budget: int | None = None) -> tuple[str | None, bool]:
    """Digit strings f (fraction digits) with 0.f `op` 0.d, as (regex for non-empty f, empty ok).
    With `budget`, f has at most that many significant digits (multipleOf 10**-budget)."""
    d = d.rstrip("0")
    if budget == 0:
        zero_ok = {"ge": not d, "gt": False, "le": True, "lt": bool(d)}[op]
        return _zero_only(zero_ok, True)
    nb = None if budget is None else budget - 1
    if op in ("ge", "le") and not d:
        if op == "le":
            return ("0+", True)
        return ("[0-9]+" if budget is None else "[0-9]" + _tail(nb)), True
    if not d:
        if op == "lt":
            return None, False
        if budget is None:
            return "0*[1-9][0-9]*", False
        return rep("[0-9]", 0, budget - 1) + "[1-9]0*", False
    first = int(d[0])
    rest_re, rest_empty = _frac_cmp(d[1:], op, nb)
    alts: list[str | None] = []
    if op in ("ge", "gt"):
        if first < 9:
            alts.append(digits_range(str(first + 1), "9") + _tail(nb))
        tail = alt([rest_re, "" if rest_empty else None])
        alts.append(cat(d[0], tail))
        return alt(alts), False
    if first > 0:
        alts.append(digits_range("0", str(first - 1)) + _tail(nb))
    tail = alt([rest_re, "" if rest_empty else None])
    alts.append(cat(d[0], tail))
    return alt(alts), True


def multiples_regex(k: int) -> str | None:
    """Canonical integers divisible by k, when k divides a power of ten (k <= 10000):
    the last j digits decide."""
    j = 0
    while j <= 4 and 10 ** j % k:
        j += 1
    if j > 4:
        return None
    small = [str(n) for n in range(k, 10 ** j, k)]
    suffixes = [str(n).zfill(j) for n in range(0, 10 ** j, k)]
    big = "[1-9][0-9]*" + (alt([lit(x) for x in suffixes]) or "") if j else None
    pos = alt(small + ([big] if big else []))
    if pos is None:
        return "0"
    return "(?:0|-?" + group(pos) + ")"


def _frac_between(a: str, b: str, a_strict: bool, b_strict: bool, budget: int | None = None) -> tuple[str | None, bool]:
    """Fraction digit strings f with 0.a (<|<=) 0.f (<|<=) 0.b (0.a <= 0.b), as
    (regex for non-empty f, whether the empty f, i.e. 0, qualifies)."""
    a = a.rstrip("0")
    b = b.rstrip("0")
    zero_ok = not a and not a_strict
    if budget == 0:
        return _zero_only(zero_ok, bool(b) or not b_strict)
    nb = None if budget is None else budget - 1
    n = max(len(a), len(b))
    if n == 0:
        return ("0+", True) if not (a_strict or b_strict) else (None, False)
    ap, bp = a.ljust(n, "0"), b.ljust(n, "0")
    if ap[0] == bp[0]:
        r, e = _frac_between(ap[1:], bp[1:], a_strict, b_strict, nb)
        return cat(ap[0], alt([r, "" if e else None])), zero_ok
    alts: list[str | None] = []
    lo_re, lo_empty = _frac_cmp(ap[1:], "gt" if a_strict else "ge", nb)
    alts.append(cat(ap[0], alt([lo_re, "" if lo_empty else None])))
    if int(bp[0]) - int(ap[0]) > 1:
        alts.append(digits_range(str(int(ap[0]) + 1), str(int(bp[0]) - 1)) + _tail(nb))
    hi_re, hi_empty = _frac_cmp(bp[1:], "lt" if b_strict else "le", nb)
    alts.append(cat(bp[0], alt([hi_re, "" if hi_empty else None])))
    return alt(alts), zero_ok


def _with_frac(int_re: str | None, frac: tuple[str | None, bool]) -> str | None:
    if int_re is None:
        return None
    fre, fempty = frac
    tail = alt([("\\." + fre) if fre is not None else None, "" if fempty else None])
    return cat(int_re if "|" not in int_re or int_re.startswith("(?:") else f"(?:{int_re})", tail)


def plain_nonneg(lo: Decimal, lo_strict: bool, hi: Decimal | None, hi_strict: bool,
                  budget: int | None = None, steps: list[str] | None = None) -> str | None:
    """Plain decimal spellings (no sign, no exponent) of x with lo (<|<=) x (<|<=) hi, lo >= 0;
    with `budget`, at most that many significant fraction digits; with `steps` (see
    `fraction_steps`), only the fractions it lists."""
    if hi is not None and (hi < lo or (hi == lo and (lo_strict or hi_strict))):
        return None
    if steps is not None:
        def frac_cmp(d: str, op: str) -> tuple[str | None, bool]:
            return _steps_between(steps, d if op in ("ge", "gt") else None, op == "gt",
                                  d if op in ("le", "lt") else None, op == "lt")

        def frac_between(a: str, b: str, a_s: bool, b_s: bool) -> tuple[str | None, bool]:
            return _steps_between(steps, a, a_s, b, b_s)
    else:
        def frac_cmp(d: str, op: str) -> tuple[str | None, bool]:
            return _frac_cmp(d, op, budget)

        def frac_between(a: str, b: str, a_s: bool, b_s: bool) -> tuple[str | None, bool]:
            return _frac_between(a, b, a_s, b_s, budget)
    any_frac = ("[0-9]+", True) if budget is None and steps is None else frac_cmp("", "ge")
    li, lf = split_dec(lo)
    parts: list[str | None] = []
    if hi is None:
        parts.append(_with_frac(nonneg_int_range(li, li), frac_cmp(lf, "gt" if lo_strict else "ge")))
        parts.append(_with_frac(nonneg_int_range(li + 1, None), any_frac))
        return alt(parts)
    hi_i, hf = split_dec(hi)
    if li == hi_i:
        return _with_frac(nonneg_int_range(li, li), frac_between(lf, hf, lo_strict, hi_strict))
    parts.append(_with_frac(nonneg_int_range(li, li), frac_cmp(lf, "gt" if lo_strict else "ge")))
    if hi_i - li > 1:
        parts.append(_with_frac(nonneg_int_range(li + 1, hi_i - 1), any_frac))
    parts.append(_with_frac(nonneg_int_range(hi_i, hi_i), frac_cmp(hf, "lt" if hi_strict else "le")))
    return alt(parts)


MAX_STEPS = 1000  # fractions a decimal multipleOf may leave (1/q: q of them), written as a digit trie


def fraction_steps(m: Decimal) -> list[str] | None:
    """For a decimal multipleOf m = p / 10^j (lowest j, j <= 4) with p dividing 10^j, i.e. m = 1/q
    (0.5, 0.25, 0.2, 0.05, 0.125...): x is a multiple iff its fraction digits, padded to j, are a
    multiple of p (the integer part never matters, as 10^j = 0 mod p): those j-digit strings.
    None for other divisors (0.3, 2.5: the integer part's digits count too)."""
    m = m.normalize()
    j = max(0, -m.as_tuple().exponent)  # type: ignore[operator]
    if j == 0 or j > 4:
        return None
    p = int(m.scaleb(j))
    if 10 ** j % p or 10 ** j // p > MAX_STEPS:
        return None
    return [str(f).zfill(j) for f in range(0, 10 ** j, p)]


def _steps_between(steps: list[str], a: str | None, a_s: bool, b: str | None, b_s: bool) -> tuple[str | None, bool]:
    """Fraction digit strings f listed in `steps` (then any zeros) with 0.a (<|<=) 0.f (<|<=) 0.b
    (None: no bound), as (regex for non-empty f, whether the empty f, i.e. 0, qualifies)."""
    lo = None if a is None else Decimal("0." + (a or "0"))
    hi = None if b is None else Decimal("0." + (b or "0"))
    kept = []
    for w in steps:
        v = Decimal("0." + w)
        if (lo is None or v > lo or (v == lo and not a_s)) and (hi is None or v < hi or (v == hi and not b_s)):
            kept.append(w.rstrip("0"))
    zero_ok = "" in kept
    words = sorted(w for w in kept if w)
    fre = alt([("0+" if zero_ok else None), (group(digit_trie(words)) + "0*" if words else None)])
    return fre, zero_ok


def split_dec(x: Decimal) -> tuple[int, str]:
    i = int(x)
    frac = x - i
    s = format(frac, "f")
    digits = s.split(".")[1] if "." in s else ""
    return i, digits.rstrip("0")


def meets(lo, lo_s, hi, hi_s, a, a_open, b, b_open) -> bool:
    """Do the intervals (lo, hi) and (a, b) (None = infinite, *_s/*_open = endpoint excluded) meet?"""
    lows = [(x, o) for x, o in ((lo, lo_s), (a, a_open)) if x is not None]
    highs = [(x, o) for x, o in ((hi, hi_s), (b, b_open)) if x is not None]
    if not lows or not highs:
        return True
    low = max(lows, key=lambda t: (t[0], t[1]))
    high = min(highs, key=lambda t: (t[0], not t[1]))
    return low[0] < high[0] or (low[0] == high[0] and not low[1] and not high[1])


def integer_regex(lo: Decimal | None, lo_s: bool, hi: Decimal | None, hi_s: bool, multiple,
                  unsupported: Unsupported) -> str | None:
    """Canonical integers within the bounds (`*_s`: bound excluded) and multiple of `multiple`."""
    ilo = ihi = None
    if lo is not None:
        ilo = int(math.floor(lo)) + 1 if lo_s else int(math.ceil(lo))
    if hi is not None:
        ihi = int(math.ceil(hi)) - 1 if hi_s else int(math.floor(hi))
    if multiple is not None:
        m = multiple
        if not isinstance(m, (int, float)) or isinstance(m, bool) or m <= 0:
            unsupported("multipleOf", f"multipleOf must be a number greater than 0, not {m!r}")
        else:
            k = Fraction(Decimal(repr(m)) if isinstance(m, float) else Decimal(m)).numerator
            # n is a multiple of p/q (lowest terms) iff p divides n q, iff p divides n
            if k != 1:
                return _integer_multiples(ilo, ihi, k, unsupported)
    return int_range_regex(ilo, ihi)


def _integer_multiples(ilo: int | None, ihi: int | None, k: int, unsupported: Unsupported) -> str | None:
    """Canonical integers in [ilo, ihi] (None: unbounded) that are multiples of k > 1."""
    if ilo is None and ihi is None:
        r = multiples_regex(k)
        if r is not None:
            return r
    if ilo is not None and ihi is not None and ilo > ihi:
        return None
    parts: list[str | None] = []
    if ilo is None or ilo < 0:  # negatives: -n with n in [max(1, -ihi), -ilo]
        neg = multiples_of(1 if ihi is None or ihi >= 0 else -ihi, None if ilo is None else -ilo, k)
        parts.append(neg if neg is None or neg is False else "-" + group(neg))
    if ihi is None or ihi >= 0:
        parts.append(multiples_of(0 if ilo is None else max(ilo, 0), ihi, k))
    if any(p is False for p in parts):
        unsupported("multipleOf", f"multipleOf {k} on integers with this range would need a regex over "
                    f"{MAX_MULTIPLE_CHARS:,} characters (its digit automaton is too large): use a divisor "
                    "up to 8, 10, 12 or a divisor of a power of ten, or a range of a few hundred values")
        return int_range_regex(ilo, ihi)
    return alt(parts)  # type: ignore[arg-type]


def number_regex(lo: Decimal | None, lo_s: bool, hi: Decimal | None, hi_s: bool, multiple,
                 unsupported: Unsupported, bound_keyword: str) -> str | None:
    """JSON number spellings within the bounds and multiple of `multiple` (None: no multipleOf)."""
    budget: int | None = None
    steps: list[str] | None = None  # a multipleOf 1/q: the fractions it leaves (fraction_steps)
    if multiple is not None:
        m = multiple
        if isinstance(m, (int, float)) and not isinstance(m, bool) and m > 0 and float(m).is_integer():
            big = Decimal("1e16")
            exp_parts: list[str | None] = []
            for a, b, sign in ((None, -big, "-"), (big, None, "")):
                if not meets(lo, lo_s, hi, hi_s, a, False, b, False):
                    continue
                if a is None:  # the class x <= -1e16 lies in the range
                    inside = lo is None and (hi is None or hi > -big or (hi == -big and not hi_s))
                else:
                    inside = hi is None and (lo is None or lo < big or (lo == big and not lo_s))
                big_rx = big_multiples(int(m)) if inside else None
                if big_rx is None:
                    unsupported("multipleOf", f"multipleOf {m!r} on numbers is supported below 1e16 in magnitude "
                                "only, or beyond it for divisors of 10000 on a range unbounded that way (json.dumps "
                                "writes larger numbers with an exponent): add a maximum and minimum within +-1e16, "
                                "or use type integer")
                    continue
                exp_parts.append(sign + group(big_rx))
            r = integer_regex(lo, lo_s, hi, hi_s, m, unsupported)
            return alt([None if r is None else group(r) + r"(?:\.0+)?"] + exp_parts)
        dm = Decimal(repr(m)) if isinstance(m, float) else None
        for j in range(1, 5):
            if dm == Decimal(1).scaleb(-j):
                budget = j  # at most j significant fraction digits
        if budget is None and dm is not None and dm > 0:
            steps = fraction_steps(dm)
            if steps is not None:
                budget = len(steps[0])  # at most that many significant fraction digits, and only those
        if budget is None:
            unsupported("multipleOf", f"multipleOf {m!r} on numbers is not supported (only integers and "
                        "1/q for q = 2^a 5^b up to 1000 with at most 4 decimals: 0.5, 0.25, 0.2, 0.1, 0.05, "
                        "0.01...; multiples of other decimals such as 0.3 or 2.5 depend on the integer part)")
    if lo is None and hi is None and budget is None:
        return NUMBER
    if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_s or hi_s))):
        return None
    parts: list[str | None] = []
    zero = Decimal(0)
    # plain spellings, non-negative part
    if hi is None or hi >= zero:
        if lo is None or lo < zero:
            parts.append(plain_nonneg(zero, False, hi, hi_s, budget, steps))
        else:
            parts.append(plain_nonneg(lo, lo_s, hi, hi_s, budget, steps))
    # plain spellings, negative part: -y with y in [max(0,-hi), -lo]
    if lo is None or lo <= zero:
        if hi is None or hi > zero:
            ylo, ylo_s = zero, False
        elif hi == zero:
            ylo, ylo_s = zero, hi_s
        else:
            ylo, ylo_s = -hi, hi_s
        yhi, yhi_s = (None, False) if lo is None else (-lo, lo_s)
        neg = plain_nonneg(ylo, ylo_s, yhi, yhi_s, budget, steps)
        if neg is not None:
            parts.append("-" + (neg if neg.startswith("(?:") and balanced_group(neg) else f"(?:{neg})"))

    def contains(a: Decimal | None, a_open: bool, b: Decimal | None, b_open: bool) -> bool:
        """Does [lo, hi] contain the interval from a to b (None = infinite; *_open = endpoint excluded)?"""
        if a is not None and lo is not None and (lo > a or (lo == a and lo_s and not a_open)):
            return False
        if a is None and lo is not None:
            return False
        if b is not None and hi is not None and (hi < b or (hi == b and hi_s and not b_open)):
            return False
        if b is None and hi is not None:
            return False
        return True

    # Exponent spellings with a normalized mantissa, only for the magnitudes json.dumps writes
    # that way: each class is taken whole when the range contains it.
    big = Decimal("1e16")
    tiny = Decimal("1e-4")
    e_big = r"[eE]\+?0*(?:1[6-9]|[2-9][0-9]|[1-9][0-9]{2,})"
    e_tiny = r"[eE]-0*(?:[5-9]|[1-9][0-9]+)"
    mant = r"[1-9](?:\.[0-9]+)?"
    mant_big = mant if budget is None else r"[1-9](?:\.[0-9]{1,16})?"  # integers: multiples of 10**-j
    classes = [
        (big, False, None, False, mant_big + e_big),
        (None, False, -big, False, "-" + mant_big + e_big),
    ]
    if budget is None:  # below 1e-4 the only multiple of 10**-j (j <= 4), or of 1/q (q <= 1000), is 0
        classes += [(zero, True, tiny, True, mant + e_tiny), (-tiny, True, zero, True, "-" + mant + e_tiny)]
    for a, a_open, b, b_open, rx in classes:
        if contains(a, a_open, b, b_open):
            parts.append(rx)
        elif meets(lo, lo_s, hi, hi_s, a, a_open, b, b_open):
            if budget is not None:
                unsupported(bound_keyword, "a number range with multipleOf that contains some but not all numbers "
                            "json.dumps writes with an exponent (|x| >= 1e16) is not supported")
                continue
            negative = rx.startswith("-")
            y = (None if hi is None else -hi, hi_s, None if lo is None else -lo, lo_s) if negative else (lo, lo_s, hi, hi_s)
            part = exponent_part(*y, big=a == big or b == -big)
            parts.append(None if part is None else ("-" + group(part) if negative else part))
    return alt(parts)


_BIG_DIGITS = 16  # fraction digits of a mantissa json.dumps writes at most (17 significant digits)


def big_multiples(m: int) -> str | None:
    """Exponent spellings d.ddd e t (t >= 16, at most 16 fraction digits: integers, the way
    json.dumps writes |x| >= 1e16) of the positive multiples of m, for m dividing 10^4 (None
    otherwise). With f fraction digits x = M 10^(t-f), M the mantissa's digits: a multiple
    whenever t - f >= e (m divides 10^e); below that the last e - (t - f) digits of M decide."""
    e = next((j for j in range(5) if 10 ** j % m == 0), None)
    if e is None:
        return None
    exp = r"[eE]\+?0*"
    first = _BIG_DIGITS - e  # up to this many fraction digits, t - f >= e always
    parts: list[str | None] = [r"[1-9](?:\.[0-9]{1,%d})?" % first + exp + "(?:1[6-9]|[2-9][0-9]|[1-9][0-9]{2,})"]
    for f in range(first + 1, _BIG_DIGITS + 1):
        parts.append(rf"[1-9]\.[0-9]{{{f}}}" + exp + group(nonneg_int_range(f + e, None)))  # type: ignore[arg-type]
        for t in range(max(16, f), f + e):  # t - f < e: the last e - (t - f) digits of M decide
            r = e - (t - f)
            ends = [str(x).zfill(r) for x in range(10 ** r) if x * 10 ** (t - f) % m == 0]
            parts.append(rf"[1-9]\.[0-9]{{{f - r}}}" + group(digit_trie(ends)) + exp + str(t))
    return alt(parts)


def exponent_part(lo: Decimal | None, lo_s: bool, hi: Decimal | None, hi_s: bool, big: bool) -> str | None:
    """Exponent spellings (mantissa d.ddd, exponent t) of the positive x with lo (<|<=) x (<|<=) hi
    (None: unbounded) that json.dumps writes that way: t >= 16 (`big`) or t <= -5. Exponents
    strictly inside the range take every mantissa; at a bound's exponent the mantissa range
    is [bound / 10^t, 10) or [1, bound / 10^t]."""
    if big:
        c_lo, c_lo_s, c_hi, c_hi_s = Decimal("1e16"), False, None, False
    else:
        c_lo, c_lo_s, c_hi, c_hi_s = Decimal(0), True, Decimal("1e-4"), True
    if lo is None or lo < c_lo or (lo == c_lo and c_lo_s):
        lo, lo_s = c_lo, c_lo_s
    if c_hi is not None and (hi is None or hi > c_hi or (hi == c_hi and c_hi_s)):
        hi, hi_s = c_hi, c_hi_s
    if hi is not None and (hi < lo or (hi == lo and (lo_s or hi_s))):
        return None
    t_lo = lo.adjusted() if lo > 0 else None  # the exponent of lo's leading digit
    t_hi = None if hi is None else (hi.adjusted() if big or hi < c_hi else -5)  # type: ignore[operator]
    mant = r"[1-9](?:\.[0-9]+)?"

    def exponents(a: int | None, b: int | None) -> str:
        if big:
            return r"[eE]\+?0*" + group(nonneg_int_range(a, b))  # type: ignore[arg-type]
        return r"[eE]-0*" + group(nonneg_int_range(-b, None if a is None else -a))  # type: ignore[arg-type, operator]

    parts: list[str | None] = []
    for t in sorted({t for t in (t_lo, t_hi) if t is not None}):
        m_lo, m_lo_s = (lo.scaleb(-t), lo_s) if t == t_lo and lo.adjusted() == t else (Decimal(1), False)
        m_hi, m_hi_s = (hi.scaleb(-t), hi_s) if hi is not None and t == t_hi and hi.adjusted() == t else (Decimal(10), True)
        m = plain_nonneg(m_lo, m_lo_s, m_hi, m_hi_s)
        parts.append(None if m is None else cat(group(m), exponents(t, t)))
    a = None if t_lo is None else t_lo + 1
    b = None if t_hi is None else t_hi - 1
    if a is None or b is None or a <= b:
        parts.append(mant + exponents(a, b))
    return alt(parts)
