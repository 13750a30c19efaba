"""Numbers and units in free text: scientific notation in its many spellings, significant figures,
numeric equivalence, and unit parsing with dimensional checks through pint."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import pint

SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
MINUS_SIGNS = str.maketrans({"−": "-", "–": "-", "﹣": "-", "－": "-"})

_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_EXPONENT = (
    r"(?:[eE](?P<e1>[-+]?\d+)"
    r"|\s*(?:×|x|\*|·|⋅|\\times|\\cdot)\s*10\s*(?:\^\s*\{?\s*(?P<e2>[-+]?\d+)(?:\s*\})?"
    r"|\*\*\s*\(?\s*(?P<e3>[-+]?\d+)(?:\s*\))?"
    rf"|(?P<e4>[⁻⁺]?[{_SUP}]+)))"
)
# Not inside a word, a decimal, or an exponent ("s^-1", "mol-1", "10^{-3}").
NUMBER_RE = re.compile(
    r"(?<![\w.^])(?<!\^-)(?<!\^\+)(?<!\^\{)(?<!\^\{-)(?<![A-Za-z]-)(?P<sign>[-+])?(?:"
    rf"10\s*(?:\^\s*\{{?\s*(?P<p1>[-+]?\d+)(?:\s*\}})?|(?P<p2>[⁻⁺]?[{_SUP}]+))"
    rf"|(?P<mant>\d+(?:\.\d*)?|\.\d+)(?:{_EXPONENT})?"
    r")(?![\d.]*\d)"
)

# Words that pint would read as units ("in" = inch, "a" = annum, "point", "turn", ...) but that
# in prose are almost always English.
_NOT_UNITS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "been", "by", "each", "for", "from", "gives", "has",
    "have", "hence", "i", "if", "in", "into", "is", "it", "its", "of", "on", "or", "over", "per", "so",
    "than", "that", "the", "then", "this", "thus", "times", "to", "was", "we", "were", "when", "where",
    "which", "while", "with", "yields", "point", "points", "turn", "turns", "line", "lines", "stone",
    "cup", "count", "bit", "hand", "e", "x", "y", "z", "n", "k", "st", "nd", "rd", "th", "care", "chain",
    "hat", "quad", "rare", "fifth", "unit", "units", "us", "me", "re",
})
# Unit names written out; any other word must be a pint unit *symbol* ("mmol", "kPa"), because pint
# also reads English words as prefixed units ("flux" = femtolux, "mass" = milli-are-second).
_SPELLED_UNITS = frozenset({
    "second", "minute", "hour", "day", "week", "year", "degree", "kelvin", "celsius", "molecule",
    "particle", "atom", "joule", "watt", "volt", "ampere", "amp", "ohm", "meter", "metre", "gram",
    "liter", "litre", "mole", "pascal", "newton", "coulomb", "tesla", "hertz", "angstrom", "percent",
    "torr", "dalton", "calorie", "electronvolt", "farad", "henry", "siemens", "weber", "lux", "radian",
})
_SPELLED_PREFIXES = ("kilo", "milli", "micro", "nano", "pico", "femto", "centi", "deci", "mega", "giga")
_UNIT_TOKEN = r"[A-Za-zµμΩÅ°%][A-Za-z0-9µμΩÅ°%·⋅*/^⁻⁰¹²³⁴⁵⁶⁷⁸⁹()\-]*"
_UNIT_AFTER_NUMBER = re.compile(
    rf"\s*(?:\[(?P<br>[^\]\n]{{1,30}})\]|\((?P<pa>[^)\n]{{1,30}})\)"
    rf"|(?P<bare>{_UNIT_TOKEN}(?:[ \t]+{_UNIT_TOKEN}){{0,3}}))"
)


def _fold(text: str) -> str:
    return text.replace("μ", "u").replace("µ", "u").casefold()


def _is_english(word: str) -> bool:
    # Single letters are case-sensitive: "N" is newton, "n" is a variable; "A" ampere, "a" an article.
    return word in _NOT_UNITS or (len(word) > 1 and word.casefold() in _NOT_UNITS)


@dataclass(frozen=True)
class Number:
    value: float
    literal: str
    start: int
    end: int

    @property
    def ulp(self) -> float:
        """One unit in the last significant place the literal states (300 -> 100, 3.00 -> 0.01)."""
        return literal_ulp(self.literal)


@dataclass(frozen=True)
class Quantity:
    number: Number
    unit_text: str | None
    unit: Any  # pint.Unit, or None when the number carries no recognisable unit


def parse_number_match(match: re.Match[str]) -> float:
    sign = -1.0 if match.group("sign") == "-" else 1.0
    if match.group("mant") is None:  # a bare power of ten: 10^19
        exponent = match.group("p1") or (match.group("p2") or "").translate(SUPERSCRIPTS)
        return sign * 10.0 ** int(exponent)
    mantissa = float(match.group("mant"))
    exponent_text = match.group("e1") or match.group("e2") or match.group("e3")
    if exponent_text is None and match.group("e4"):
        exponent_text = match.group("e4").translate(SUPERSCRIPTS)
    exponent = int(exponent_text) if exponent_text else 0
    return sign * mantissa * 10.0 ** exponent


def normalise_text(text: str) -> str:
    return text.translate(MINUS_SIGNS)


def find_numbers(text: str) -> list[Number]:
    """Every number in `text` (expects `normalise_text` applied), in order of appearance."""
    found = []
    for m in NUMBER_RE.finditer(text):
        try:
            value = parse_number_match(m)
        except (OverflowError, ValueError):
            continue
        if math.isfinite(value):
            found.append(Number(value=value, literal=m.group(0), start=m.start(), end=m.end()))
    return found


def literal_ulp(literal: str) -> float:
    m = NUMBER_RE.fullmatch(normalise_text(literal.strip()))
    if m is None:
        raise ValueError(f"not a number: {literal!r}")
    if m.group("mant") is None:
        exponent = int(m.group("p1") or (m.group("p2") or "").translate(SUPERSCRIPTS))
        return 10.0 ** exponent
    mantissa = m.group("mant")
    exponent_text = m.group("e1") or m.group("e2") or m.group("e3")
    if exponent_text is None and m.group("e4"):
        exponent_text = m.group("e4").translate(SUPERSCRIPTS)
    exponent = int(exponent_text) if exponent_text else 0
    if "." in mantissa:
        place = -len(mantissa.split(".", 1)[1])
    else:
        digits = mantissa.lstrip("0") or "0"
        place = len(digits) - len(digits.rstrip("0")) if digits != "0" else 0
    return 10.0 ** (place + exponent)


def round_sig(x: float, sig_figs: int) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    return float(f"{x:.{sig_figs - 1}e}")


def values_agree(value: float, reference: float, *, sig_figs: int = 4,
                 rel_tol: float | None = None, abs_tol: float | None = None) -> bool:
    """Numeric equivalence: the item's own tolerance when it gives one, else agreement to
    `sig_figs` significant figures (SciIF Appendix F: numbers compared at four significant figures).

    Agreement means equal after rounding both to `sig_figs`, or within half a unit of the reference's
    last significant place (so 1.23449 and 1.2345 agree although they round apart).
    """
    if rel_tol is not None or abs_tol is not None:
        return math.isclose(value, reference, rel_tol=rel_tol or 0.0, abs_tol=abs_tol or 0.0)
    if reference == 0:
        return value == 0
    if round_sig(value, sig_figs) == round_sig(reference, sig_figs):
        return True
    half_unit = 0.5 * 10.0 ** (math.floor(math.log10(abs(reference))) - (sig_figs - 1))
    return abs(value - reference) <= half_unit * (1 + 1e-12)


class UnitParser:
    """pint behind a forgiving front: '·', unicode superscripts, 'cm-1', 'mol m^-2 s^-1', brackets."""

    def __init__(self) -> None:
        self.registry: Any = pint.UnitRegistry()
        self._cache: dict[str, Any] = {}

    def parse(self, text: str) -> Any:
        """A pint Unit, or None when `text` is not a unit."""
        key = text.strip()
        if key in self._cache:
            return self._cache[key]
        unit = self._parse(key)
        self._cache[key] = unit
        return unit

    def _parse(self, text: str) -> Any:
        cleaned = text.strip().strip(".,;:").strip()
        if cleaned.startswith(("[", "(")) and cleaned.endswith(("]", ")")):
            cleaned = cleaned[1:-1].strip()
        if cleaned.casefold() in ("dimensionless", "unitless", "1"):
            return self.registry.dimensionless
        words = [w for w in re.findall(r"[A-Za-zµμΩÅ]+", cleaned) if w != "per"]
        if not cleaned or not all(self._unit_word(w) for w in words):
            return None
        cleaned = normalise_text(cleaned)
        cleaned = re.sub(r"[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+", lambda m: "^" + m.group(0).translate(SUPERSCRIPTS), cleaned)
        cleaned = cleaned.translate(SUBSCRIPTS)
        cleaned = re.sub(r"[·⋅•×]", "*", cleaned)
        cleaned = re.sub(r"°\s*C\b", "degC", cleaned)
        cleaned = re.sub(r"°\s*F\b", "degF", cleaned)
        cleaned = re.sub(r"°", "degree", cleaned)
        cleaned = re.sub(r"\bper\b", "/", cleaned)
        # "cm-1", "mol-1", "m3": a unit name directly followed by a (signed) integer is a power.
        cleaned = re.sub(r"(?<=[A-Za-zµμΩÅ])(-?\d+)\b", r"^\1", cleaned)
        if not re.fullmatch(r"[A-Za-z0-9µμΩÅ%_*/^()\-+.\s]+", cleaned):
            return None
        try:
            unit = self.registry.parse_units(cleaned)
        except Exception:  # pint raises many error types for text that is not a unit
            return None
        return unit

    def _unit_word(self, word: str) -> bool:
        if _is_english(word):
            return False
        spelled = word.casefold()
        spelled = spelled[:-1] if len(spelled) > 3 and spelled.endswith("s") else spelled
        for prefix in _SPELLED_PREFIXES:
            if spelled.startswith(prefix) and spelled[len(prefix):] in _SPELLED_UNITS:
                return True
        if spelled in _SPELLED_UNITS:
            return True
        try:
            symbol = str(self.registry.get_symbol(word))
        except Exception:  # pint: not a unit at all
            return False
        return _fold(symbol) == _fold(word)

    def dimensionality(self, unit: Any) -> dict[str, float]:
        return dict(unit.dimensionality)

    def same_dimension(self, a: Any, b: Any) -> bool:
        return bool(a.dimensionality == b.dimensionality)

    def is_dimensionless(self, unit: Any) -> bool:
        return bool(unit.dimensionless)

    def convert(self, value: float, unit: Any, target: Any) -> float:
        return float(self.registry.Quantity(value, unit).to(target).magnitude)

    def quantities(self, text: str) -> list[Quantity]:
        """Numbers with the unit written right after them, when there is one."""
        text = normalise_text(text)
        out = []
        for number in find_numbers(text):
            unit_text, unit = self._unit_after(text, number.end)
            out.append(Quantity(number=number, unit_text=unit_text, unit=unit))
        return out

    def _unit_after(self, text: str, position: int) -> tuple[str | None, Any]:
        m = _UNIT_AFTER_NUMBER.match(text, position)
        if m is None:
            return None, None
        if m.group("br") or m.group("pa"):
            inner = m.group("br") or m.group("pa")
            unit = self.parse(inner)
            return (inner, unit) if unit is not None else (None, None)
        tokens = m.group("bare").split()
        # Stop at the first English word (or a word after the first token that is no unit symbol:
        # "m/s^2 gravity"),
        # then try the longest run of tokens that parses.
        for i, token in enumerate(tokens):
            bare = token.strip(".,;:")
            if _is_english(bare) or (i > 0 and len(bare) > 3 and not re.search(r"[\d^*/·⋅⁻]", bare)):
                tokens = tokens[:i]
                break
        for n in range(len(tokens), 0, -1):
            candidate = " ".join(tokens[:n]).rstrip(".,;:")
            while candidate.endswith(")") and candidate.count(")") > candidate.count("("):
                candidate = candidate[:-1]  # the number sat inside parentheses: "(3.0 m/s)"
            unit = self.parse(candidate)
            if unit is not None:
                return candidate, unit
        return None, None
