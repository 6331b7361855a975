"""``torch.backends.cudnn``: its flags can be set, and change nothing on the CPU."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
