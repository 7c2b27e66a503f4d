from enum import Enum


class NodeStateDto(str, Enum):
    ACTIVE = "active"
    ARCHIVED = "archived"
    DORMANT = "dormant"
    QUARANTINED = "quarantined"

    def __str__(self) -> str:
        return str(self.value)
