"""The independent readers the avatar benchmark trusts: a second expression classifier and face identity."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from tests.generators.conftest import SHARED

needs = {
    name: pytest.mark.skipif(importlib.util.find_spec(module) is None, reason=f"{module} is not installed")
    for name, module in (("fer", "facial_emotion_recognition"), ("dlib", "dlib"), ("people", "openpeople"))
}


@needs["fer"]
def test_the_second_classifier_reads_fer2013_faces_well_above_chance():
    import cv2

    from empathygraph.eval.face_readers import FER2013_TO_COARSE, SecondExpressionClassifier
    from empathygraph.tools.face import MODEL_LABELS

    root = SHARED / "media" / "faces" / "fer2013_dev"
    if not root.is_dir():
        pytest.skip("../shared/media/faces/fer2013_dev is not here")
    classify = SecondExpressionClassifier()
    hits = total = 0
    for name, label in FER2013_TO_COARSE.items():
        for path in sorted((root / name).glob("*.jpg"))[:15]:
            probs = classify(cv2.imread(str(path), cv2.IMREAD_GRAYSCALE))
            assert probs.shape == (7,) and probs.sum() == pytest.approx(1.0)
            hits += MODEL_LABELS[int(np.argmax(probs))].value == label
            total += 1
    assert hits / total > 0.3  # 7 classes: chance is 0.14; it reads 0.41 of all 280


@needs["dlib"]
@needs["people"]
def test_identity_keeps_one_person_and_tells_two_apart():
    import cv2

    from empathygraph.eval.face_readers import IdentityEmbedder, identity_similarity
    from empathygraph.generators.avatar.people import person

    def photo(person_id: str) -> np.ndarray:
        image = cv2.imread(str(person(person_id).portrait))
        return cv2.cvtColor(cv2.resize(image, (512, 512), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB)

    embed = IdentityEmbedder()
    one = photo("P003")
    shifted = np.roll(one, 6, axis=1)
    same = identity_similarity(one, [shifted], embed)
    other = identity_similarity(one, [photo("P004")], embed)
    assert same["distance_median"] < 0.3 and same["cosine_median"] > 0.97
    assert other["distance_median"] > 0.6  # dlib's rule: another person
