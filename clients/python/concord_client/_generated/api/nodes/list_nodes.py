import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.node_list_response import NodeListResponse
from ...models.node_state_dto import NodeStateDto
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    q: str | Unset = UNSET,
    label: str | Unset = UNSET,
    memory_type: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    state: NodeStateDto | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["q"] = q

    params["label"] = label

    params["memory_type"] = memory_type

    params["scope"] = scope

    json_state: str | Unset = UNSET
    if not isinstance(state, Unset):
        json_state = state.value

    params["state"] = json_state

    params["limit"] = limit

    params["cursor"] = cursor

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
        "url": "/nodes",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> NodeListResponse | Problem | None:
    if response.status_code == 200:
        response_200 = NodeListResponse.from_dict(response.json())

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[NodeListResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    q: str | Unset = UNSET,
    label: str | Unset = UNSET,
    memory_type: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    state: NodeStateDto | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> Response[NodeListResponse | Problem]:
    """List nodes, newest first, or ranked by a full-text query.

    Args:
        q (str | Unset):
        label (str | Unset):
        memory_type (str | Unset):
        scope (str | Unset):
        state (NodeStateDto | Unset): Lifecycle state of a node; only `active` nodes take part in
            detection.
        limit (int | Unset):
        cursor (str | Unset):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NodeListResponse | Problem]
    """

    kwargs = _get_kwargs(
        q=q,
        label=label,
        memory_type=memory_type,
        scope=scope,
        state=state,
        limit=limit,
        cursor=cursor,
        as_of=as_of,
        known_at=known_at,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    q: str | Unset = UNSET,
    label: str | Unset = UNSET,
    memory_type: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    state: NodeStateDto | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> NodeListResponse | Problem | None:
    """List nodes, newest first, or ranked by a full-text query.

    Args:
        q (str | Unset):
        label (str | Unset):
        memory_type (str | Unset):
        scope (str | Unset):
        state (NodeStateDto | Unset): Lifecycle state of a node; only `active` nodes take part in
            detection.
        limit (int | Unset):
        cursor (str | Unset):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NodeListResponse | Problem
    """

    return sync_detailed(
        client=client,
        q=q,
        label=label,
        memory_type=memory_type,
        scope=scope,
        state=state,
        limit=limit,
        cursor=cursor,
        as_of=as_of,
        known_at=known_at,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    q: str | Unset = UNSET,
    label: str | Unset = UNSET,
    memory_type: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    state: NodeStateDto | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> Response[NodeListResponse | Problem]:
    """List nodes, newest first, or ranked by a full-text query.

    Args:
        q (str | Unset):
        label (str | Unset):
        memory_type (str | Unset):
        scope (str | Unset):
        state (NodeStateDto | Unset): Lifecycle state of a node; only `active` nodes take part in
            detection.
        limit (int | Unset):
        cursor (str | Unset):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NodeListResponse | Problem]
    """

    kwargs = _get_kwargs(
        q=q,
        label=label,
        memory_type=memory_type,
        scope=scope,
        state=state,
        limit=limit,
        cursor=cursor,
        as_of=as_of,
        known_at=known_at,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    q: str | Unset = UNSET,
    label: str | Unset = UNSET,
    memory_type: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    state: NodeStateDto | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> NodeListResponse | Problem | None:
    """List nodes, newest first, or ranked by a full-text query.

    Args:
        q (str | Unset):
        label (str | Unset):
        memory_type (str | Unset):
        scope (str | Unset):
        state (NodeStateDto | Unset): Lifecycle state of a node; only `active` nodes take part in
            detection.
        limit (int | Unset):
        cursor (str | Unset):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NodeListResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            q=q,
            label=label,
            memory_type=memory_type,
            scope=scope,
            state=state,
            limit=limit,
            cursor=cursor,
            as_of=as_of,
            known_at=known_at,
        )
    ).parsed
