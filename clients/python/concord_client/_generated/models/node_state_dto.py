from enum import Enum


class NodeStateDto(str, Enum):
    ACTIVE = "active"
    ARCHIVED = "archived"
    DORMANT = "dormant"

    def __str__(self) -> str:
        return str(self.value)
