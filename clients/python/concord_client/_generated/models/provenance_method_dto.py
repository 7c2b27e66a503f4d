from enum import Enum


class ProvenanceMethodDto(str, Enum):
    HEARSAY = "hearsay"
    INFERRED = "inferred"
    OBSERVED = "observed"
    READ_FROM_DOCUMENT = "read_from_document"
    SCANNED = "scanned"
    TOLD_BY_USER = "told_by_user"
    WEB = "web"

    def __str__(self) -> str:
        return str(self.value)
