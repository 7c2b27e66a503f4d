import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.node_dto import NodeDto
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_as_of: str | Unset = UNSET
    if not isinstance(as_of, Unset):
        json_as_of = as_of.isoformat()
    params["as_of"] = json_as_of

    json_known_at: str | Unset = UNSET
    if not isinstance(known_at, Unset):
        json_known_at = known_at.isoformat()
    params["known_at"] = json_known_at

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/nodes/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> NodeDto | Problem | None:
    if response.status_code == 200:
        response_200 = NodeDto.from_dict(response.json())

        return response_200

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[NodeDto | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> Response[NodeDto | Problem]:
    """Read a node (with `conflict_ids` when it has pending conflicts). With `as_of` or
    `known_at`, the node as it stood then (`updated_at` is when concord recorded that
    version); 404 when it did not hold at `as_of` or concord did not know it at `known_at`.

    Args:
        id (UUID):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NodeDto | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        as_of=as_of,
        known_at=known_at,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> NodeDto | Problem | None:
    """Read a node (with `conflict_ids` when it has pending conflicts). With `as_of` or
    `known_at`, the node as it stood then (`updated_at` is when concord recorded that
    version); 404 when it did not hold at `as_of` or concord did not know it at `known_at`.

    Args:
        id (UUID):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NodeDto | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        as_of=as_of,
        known_at=known_at,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> Response[NodeDto | Problem]:
    """Read a node (with `conflict_ids` when it has pending conflicts). With `as_of` or
    `known_at`, the node as it stood then (`updated_at` is when concord recorded that
    version); 404 when it did not hold at `as_of` or concord did not know it at `known_at`.

    Args:
        id (UUID):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NodeDto | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        as_of=as_of,
        known_at=known_at,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> NodeDto | Problem | None:
    """Read a node (with `conflict_ids` when it has pending conflicts). With `as_of` or
    `known_at`, the node as it stood then (`updated_at` is when concord recorded that
    version); 404 when it did not hold at `as_of` or concord did not know it at `known_at`.

    Args:
        id (UUID):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NodeDto | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            as_of=as_of,
            known_at=known_at,
        )
    ).parsed
