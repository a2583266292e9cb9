"""Helpers of the io tests."""

import pytest


@pytest.fixture
def one_line():
    """``one_line(exc_info, kind, *parts)``: the error is exactly ``kind``, one line, naming every part."""

    def check(exc_info, kind, *parts):
        msg = str(exc_info.value)
        assert type(exc_info.value) is kind and msg and "\n" not in msg, repr(msg)
        for p in parts:
            assert str(p) in msg, (p, msg)
        return msg

    return check
