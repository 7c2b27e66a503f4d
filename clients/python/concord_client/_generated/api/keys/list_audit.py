import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.audit_list_response import AuditListResponse
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    key: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["key"] = key

    json_since: str | Unset = UNSET
    if not isinstance(since, Unset):
        json_since = since.isoformat()
    params["since"] = json_since

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/audit",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AuditListResponse | Problem | None:
    if response.status_code == 200:
        response_200 = AuditListResponse.from_dict(response.json())

        return response_200

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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
) -> Response[AuditListResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    key: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[AuditListResponse | Problem]:
    """Who did what, newest first (admin of every scope): every change of a memory (each of its
    versions), every change of a conflict (each entry of its history), keys made and revoked,
    sweeps started, each with the name of the key that made it. `key` and `since` narrow it.

    Args:
        key (str | Unset):
        since (datetime.datetime | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditListResponse | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
        since=since,
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
    key: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> AuditListResponse | Problem | None:
    """Who did what, newest first (admin of every scope): every change of a memory (each of its
    versions), every change of a conflict (each entry of its history), keys made and revoked,
    sweeps started, each with the name of the key that made it. `key` and `since` narrow it.

    Args:
        key (str | Unset):
        since (datetime.datetime | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditListResponse | Problem
    """

    return sync_detailed(
        client=client,
        key=key,
        since=since,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    key: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[AuditListResponse | Problem]:
    """Who did what, newest first (admin of every scope): every change of a memory (each of its
    versions), every change of a conflict (each entry of its history), keys made and revoked,
    sweeps started, each with the name of the key that made it. `key` and `since` narrow it.

    Args:
        key (str | Unset):
        since (datetime.datetime | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditListResponse | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
        since=since,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    key: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> AuditListResponse | Problem | None:
    """Who did what, newest first (admin of every scope): every change of a memory (each of its
    versions), every change of a conflict (each entry of its history), keys made and revoked,
    sweeps started, each with the name of the key that made it. `key` and `since` narrow it.

    Args:
        key (str | Unset):
        since (datetime.datetime | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditListResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            key=key,
            since=since,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
