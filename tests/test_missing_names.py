"""A torch name gradbook lacks gives an error that names it (a NotImplementedError that hasattr
still reads as missing); the lists of such names stay equal to what torch has and gradbook lacks."""

import numpy as np
import pytest

import gradbook
from gradbook import _missing


def test_a_missing_tensor_method_is_named():
    with pytest.raises(NotImplementedError, match=r"gradbook's Tensor has no kthvalue \(torch.Tensor.kthvalue\)"):
        gradbook.ones(3).kthvalue(1)


def test_a_missing_function_is_named():
    with pytest.raises(NotImplementedError, match=r"gradbook has no compile \(torch.compile\)"):
        gradbook.compile  # noqa: B018


def test_a_missing_autograd_name_is_named():
    with pytest.raises(
        NotImplementedError, match=r"gradbook has no autograd.detect_anomaly \(torch.autograd.detect_anomaly\)"
    ):
        gradbook.autograd.detect_anomaly  # noqa: B018
    with pytest.raises(AttributeError, match="module 'gradbook.autograd' has no attribute 'nonsense'"):
        gradbook.autograd.nonsense  # noqa: B018


def test_a_missing_utils_name_is_named():
    with pytest.raises(NotImplementedError, match=r"gradbook has no utils.checkpoint \(torch.utils.checkpoint\)"):
        gradbook.utils.checkpoint  # noqa: B018
    with pytest.raises(AttributeError, match="module 'gradbook.utils' has no attribute 'nonsense'"):
        gradbook.utils.nonsense  # noqa: B018


def test_hasattr_still_finds_nothing():
    x = gradbook.ones(2)
    assert not hasattr(x, "kthvalue") and not hasattr(x, "values") and not hasattr(gradbook, "fft")
    assert getattr(x, "kthvalue", None) is None
    np.testing.assert_array_equal(np.asarray(x), [1.0, 1.0])  # NumPy's probing of attributes is unaffected


def test_other_names_are_plain_attribute_errors():
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'nonsense'") as e:
        gradbook.ones(1).nonsense  # noqa: B018
    assert not isinstance(e.value, NotImplementedError)
    with pytest.raises(AttributeError, match="module 'gradbook' has no attribute 'nonsense'"):
        gradbook.nonsense  # noqa: B018


def test_the_lists_are_what_torch_has_and_gradbook_lacks():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch.onnx")  # dir(torch) lists it only once loaded (torch.func loads it)

    tensor = {n for n in dir(torch.Tensor) if not n.startswith("_") and not hasattr(gradbook.Tensor, n)}
    module = {n for n in dir(torch) if not n.startswith("_") and n[0].islower() and not hasattr(gradbook, n)}
    assert _missing.TENSOR == tensor, "regenerate gradbook/_missing.py: a name was added or torch changed"
    assert _missing.TORCH == module, "regenerate gradbook/_missing.py: a name was added or torch changed"
    autograd = {n for n in dir(torch.autograd) if not n.startswith("_") and n[0].islower()}
    assert _missing.AUTOGRAD == {n for n in autograd if not hasattr(gradbook.autograd, n)}
    utils = {n for n in dir(torch.utils) if not n.startswith("_") and n[0].islower()}
    assert _missing.UTILS == {n for n in utils if not hasattr(gradbook.utils, n)}
