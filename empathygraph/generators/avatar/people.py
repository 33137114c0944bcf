"""The packaged people (``openpeople``, MIT): a studio portrait and a sheet of labelled expressions each.

Ten synthetic adults (18-65, seven women and three men). A profile gets the person
closest to it in gender and age; a child profile gets the youngest woman, since no
child ships.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from empathygraph.generators.base import GeneratorError
from empathygraph.schemas import AgeGroup, AvatarProfile, Gender

# Typical age of each profile age group, to pick the nearest person.
_AGE_YEARS = {AgeGroup.CHILD: 10, AgeGroup.YOUNG: 27, AgeGroup.MIDDLE_AGED: 45, AgeGroup.ELDERLY: 70}


@dataclass(frozen=True)
class Person:
    """One packaged person: id, sex, age range and the two images used here."""

    person_id: str
    sex: str
    age_low: int
    age_high: int
    portrait: Path
    expression_sheet: Path

    @property
    def age(self) -> float:
        return (self.age_low + self.age_high) / 2


@lru_cache(maxsize=1)
def people() -> tuple[Person, ...]:
    """Every packaged person, by id.

    Raises:
        GeneratorError: the ``openpeople`` package is not installed.
    """
    try:
        import openpeople
    except ImportError as exc:
        raise GeneratorError("portrait: the packaged people are missing: pip install openpeople") from exc
    found = []
    for entry in openpeople.curated.list():
        low, _, high = (entry.demographics.age_range or "30-40").partition("-")
        folder = Path(entry.assets_dir)
        found.append(Person(entry.person_id, entry.demographics.sex or "unknown", int(low), int(high or low),
                            folder / "studio_portrait.jpg", folder / "emotions_sheet.jpg"))  # fmt: skip
    return tuple(sorted(found, key=lambda p: p.person_id))


def person(person_id: str) -> Person:
    """The packaged person with this id (``P001`` ...)."""
    for candidate in people():
        if candidate.person_id == person_id:
            return candidate
    raise GeneratorError(f"portrait: no packaged person {person_id} (have {', '.join(p.person_id for p in people())})")


def person_for(profile: AvatarProfile) -> Person:
    """The packaged person who best fits ``profile``: same gender (a child: female), nearest age."""
    sex = "female" if profile.gender is Gender.FEMALE or profile.age is AgeGroup.CHILD else "male"
    same = [p for p in people() if p.sex == sex] or list(people())
    return min(same, key=lambda p: (abs(p.age - _AGE_YEARS[profile.age]), p.person_id))
