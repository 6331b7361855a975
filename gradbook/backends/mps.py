"""``torch.backends.mps`` (Apple GPUs): not available."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
