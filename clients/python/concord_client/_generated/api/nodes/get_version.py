from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.node_version_dto import NodeVersionDto
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    id: UUID,
    version: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/nodes/{id}/versions/{version}".format(
            id=quote(str(id), safe=""),
            version=quote(str(version), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> NodeVersionDto | Problem | None:
    if response.status_code == 200:
        response_200 = NodeVersionDto.from_dict(response.json())

        return response_200

    if 400 <= response.status_code <= 499:
        response_4xx = Problem.from_dict(response.json())

        return response_4xx

    if 500 <= response.status_code <= 599:
        response_5xx = Problem.from_dict(response.json())

        return response_5xx

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[NodeVersionDto | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    version: int,
    *,
    client: AuthenticatedClient | Client,
) -> Response[NodeVersionDto | Problem]:
    """One version of a memory. A deleted memory keeps its versions, so they stay readable after
    the DELETE (the last is the `deleted` tombstone); an id that never existed is 404.

    Args:
        id (UUID):
        version (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NodeVersionDto | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        version=version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    version: int,
    *,
    client: AuthenticatedClient | Client,
) -> NodeVersionDto | Problem | None:
    """One version of a memory. A deleted memory keeps its versions, so they stay readable after
    the DELETE (the last is the `deleted` tombstone); an id that never existed is 404.

    Args:
        id (UUID):
        version (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NodeVersionDto | Problem
    """

    return sync_detailed(
        id=id,
        version=version,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    version: int,
    *,
    client: AuthenticatedClient | Client,
) -> Response[NodeVersionDto | Problem]:
    """One version of a memory. A deleted memory keeps its versions, so they stay readable after
    the DELETE (the last is the `deleted` tombstone); an id that never existed is 404.

    Args:
        id (UUID):
        version (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NodeVersionDto | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        version=version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    version: int,
    *,
    client: AuthenticatedClient | Client,
) -> NodeVersionDto | Problem | None:
    """One version of a memory. A deleted memory keeps its versions, so they stay readable after
    the DELETE (the last is the `deleted` tombstone); an id that never existed is 404.

    Args:
        id (UUID):
        version (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NodeVersionDto | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            version=version,
            client=client,
        )
    ).parsed
