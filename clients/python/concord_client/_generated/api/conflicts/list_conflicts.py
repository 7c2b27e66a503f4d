from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.conflict_list_response import ConflictListResponse
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    status: str | Unset = UNSET,
    conflict_type: str | Unset = UNSET,
    label: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    order: str | Unset = UNSET,
    resolved_by: str | Unset = UNSET,
    auto: str | Unset = UNSET,
    max_chars: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["status"] = status

    params["conflict_type"] = conflict_type

    params["label"] = label

    params["scope"] = scope

    params["order"] = order

    params["resolved_by"] = resolved_by

    params["auto"] = auto

    params["max_chars"] = max_chars

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/conflicts",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ConflictListResponse | Problem | None:
    if response.status_code == 200:
        response_200 = ConflictListResponse.from_dict(response.json())

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
) -> Response[ConflictListResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: str | Unset = UNSET,
    conflict_type: str | Unset = UNSET,
    label: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    order: str | Unset = UNSET,
    resolved_by: str | Unset = UNSET,
    auto: str | Unset = UNSET,
    max_chars: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[ConflictListResponse | Problem]:
    """List conflicts with both nodes in full.

    Args:
        status (str | Unset):
        conflict_type (str | Unset):
        label (str | Unset):
        scope (str | Unset):
        order (str | Unset):
        resolved_by (str | Unset):
        auto (str | Unset):
        max_chars (int | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConflictListResponse | Problem]
    """

    kwargs = _get_kwargs(
        status=status,
        conflict_type=conflict_type,
        label=label,
        scope=scope,
        order=order,
        resolved_by=resolved_by,
        auto=auto,
        max_chars=max_chars,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    status: str | Unset = UNSET,
    conflict_type: str | Unset = UNSET,
    label: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    order: str | Unset = UNSET,
    resolved_by: str | Unset = UNSET,
    auto: str | Unset = UNSET,
    max_chars: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> ConflictListResponse | Problem | None:
    """List conflicts with both nodes in full.

    Args:
        status (str | Unset):
        conflict_type (str | Unset):
        label (str | Unset):
        scope (str | Unset):
        order (str | Unset):
        resolved_by (str | Unset):
        auto (str | Unset):
        max_chars (int | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConflictListResponse | Problem
    """

    return sync_detailed(
        client=client,
        status=status,
        conflict_type=conflict_type,
        label=label,
        scope=scope,
        order=order,
        resolved_by=resolved_by,
        auto=auto,
        max_chars=max_chars,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: str | Unset = UNSET,
    conflict_type: str | Unset = UNSET,
    label: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    order: str | Unset = UNSET,
    resolved_by: str | Unset = UNSET,
    auto: str | Unset = UNSET,
    max_chars: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[ConflictListResponse | Problem]:
    """List conflicts with both nodes in full.

    Args:
        status (str | Unset):
        conflict_type (str | Unset):
        label (str | Unset):
        scope (str | Unset):
        order (str | Unset):
        resolved_by (str | Unset):
        auto (str | Unset):
        max_chars (int | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConflictListResponse | Problem]
    """

    kwargs = _get_kwargs(
        status=status,
        conflict_type=conflict_type,
        label=label,
        scope=scope,
        order=order,
        resolved_by=resolved_by,
        auto=auto,
        max_chars=max_chars,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    status: str | Unset = UNSET,
    conflict_type: str | Unset = UNSET,
    label: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    order: str | Unset = UNSET,
    resolved_by: str | Unset = UNSET,
    auto: str | Unset = UNSET,
    max_chars: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> ConflictListResponse | Problem | None:
    """List conflicts with both nodes in full.

    Args:
        status (str | Unset):
        conflict_type (str | Unset):
        label (str | Unset):
        scope (str | Unset):
        order (str | Unset):
        resolved_by (str | Unset):
        auto (str | Unset):
        max_chars (int | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConflictListResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            status=status,
            conflict_type=conflict_type,
            label=label,
            scope=scope,
            order=order,
            resolved_by=resolved_by,
            auto=auto,
            max_chars=max_chars,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
