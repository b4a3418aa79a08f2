"""The PBS simulator's errors: an answer other than 200 (``PbsError``), an auth-layer refusal (``PbsAuthError``)."""


class PbsError(Exception):
    """An error answer: plain text body, this status (anyhow errors are 400)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


class PbsAuthError(Exception):
    pass
