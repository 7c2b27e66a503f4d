"""The request and response models, generated from the OpenAPI document."""

from ._generated.models import *  # noqa: F403
from ._generated.models import __all__ as __all__
