import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.recall import Recall
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    q: str,
    label: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["q"] = q

    params["label"] = label

    params["scope"] = scope

    params["limit"] = limit

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
        "url": "/recall",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Recall | None:
    if response.status_code == 200:
        response_200 = Recall.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Recall]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    q: str,
    label: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> Response[Problem | Recall]:
    """Recall active memories matching a query. `sources` are the memories, best match first;
    `conflicts` lists pending conflicts that touch them and disagreements detection finds
    between them, and is absent when they agree. Nothing is written.

    Args:
        q (str):
        label (str | Unset):
        scope (str | Unset):
        limit (int | Unset):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Recall]
    """

    kwargs = _get_kwargs(
        q=q,
        label=label,
        scope=scope,
        limit=limit,
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
    q: str,
    label: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> Problem | Recall | None:
    """Recall active memories matching a query. `sources` are the memories, best match first;
    `conflicts` lists pending conflicts that touch them and disagreements detection finds
    between them, and is absent when they agree. Nothing is written.

    Args:
        q (str):
        label (str | Unset):
        scope (str | Unset):
        limit (int | Unset):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Recall
    """

    return sync_detailed(
        client=client,
        q=q,
        label=label,
        scope=scope,
        limit=limit,
        as_of=as_of,
        known_at=known_at,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    q: str,
    label: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> Response[Problem | Recall]:
    """Recall active memories matching a query. `sources` are the memories, best match first;
    `conflicts` lists pending conflicts that touch them and disagreements detection finds
    between them, and is absent when they agree. Nothing is written.

    Args:
        q (str):
        label (str | Unset):
        scope (str | Unset):
        limit (int | Unset):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Recall]
    """

    kwargs = _get_kwargs(
        q=q,
        label=label,
        scope=scope,
        limit=limit,
        as_of=as_of,
        known_at=known_at,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    q: str,
    label: str | Unset = UNSET,
    scope: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,
    known_at: datetime.datetime | Unset = UNSET,
) -> Problem | Recall | None:
    """Recall active memories matching a query. `sources` are the memories, best match first;
    `conflicts` lists pending conflicts that touch them and disagreements detection finds
    between them, and is absent when they agree. Nothing is written.

    Args:
        q (str):
        label (str | Unset):
        scope (str | Unset):
        limit (int | Unset):
        as_of (datetime.datetime | Unset):
        known_at (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Recall
    """

    return (
        await asyncio_detailed(
            client=client,
            q=q,
            label=label,
            scope=scope,
            limit=limit,
            as_of=as_of,
            known_at=known_at,
        )
    ).parsed
