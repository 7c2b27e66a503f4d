from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.wake_response import WakeResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    after: str | Unset = UNSET,
    wait: int | Unset = UNSET,
    scope: str | Unset = UNSET,
    max_: int | Unset = UNSET,
    preview_chars: int | Unset = UNSET,
    format_: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["after"] = after

    params["wait"] = wait

    params["scope"] = scope

    params["max"] = max_

    params["preview_chars"] = preview_chars

    params["format"] = format_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/conflicts/wake",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Problem | WakeResponse | None:
    if response.status_code == 200:
        response_200 = WakeResponse.from_dict(response.json())

        return response_200

    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

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
) -> Response[Any | Problem | WakeResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    wait: int | Unset = UNSET,
    scope: str | Unset = UNSET,
    max_: int | Unset = UNSET,
    preview_chars: int | Unset = UNSET,
    format_: str | Unset = UNSET,
) -> Response[Any | Problem | WakeResponse]:
    """Wait for pending conflicts: returns at once when some are pending after `after`, else waits
    up to `wait` seconds for the first one (204 if none came). A conflict queued through any
    instance sharing the database wakes the wait (PostgreSQL LISTEN/NOTIFY).

    Args:
        after (str | Unset):
        wait (int | Unset):
        scope (str | Unset):
        max_ (int | Unset):
        preview_chars (int | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | WakeResponse]
    """

    kwargs = _get_kwargs(
        after=after,
        wait=wait,
        scope=scope,
        max_=max_,
        preview_chars=preview_chars,
        format_=format_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    wait: int | Unset = UNSET,
    scope: str | Unset = UNSET,
    max_: int | Unset = UNSET,
    preview_chars: int | Unset = UNSET,
    format_: str | Unset = UNSET,
) -> Any | Problem | WakeResponse | None:
    """Wait for pending conflicts: returns at once when some are pending after `after`, else waits
    up to `wait` seconds for the first one (204 if none came). A conflict queued through any
    instance sharing the database wakes the wait (PostgreSQL LISTEN/NOTIFY).

    Args:
        after (str | Unset):
        wait (int | Unset):
        scope (str | Unset):
        max_ (int | Unset):
        preview_chars (int | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | WakeResponse
    """

    return sync_detailed(
        client=client,
        after=after,
        wait=wait,
        scope=scope,
        max_=max_,
        preview_chars=preview_chars,
        format_=format_,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    wait: int | Unset = UNSET,
    scope: str | Unset = UNSET,
    max_: int | Unset = UNSET,
    preview_chars: int | Unset = UNSET,
    format_: str | Unset = UNSET,
) -> Response[Any | Problem | WakeResponse]:
    """Wait for pending conflicts: returns at once when some are pending after `after`, else waits
    up to `wait` seconds for the first one (204 if none came). A conflict queued through any
    instance sharing the database wakes the wait (PostgreSQL LISTEN/NOTIFY).

    Args:
        after (str | Unset):
        wait (int | Unset):
        scope (str | Unset):
        max_ (int | Unset):
        preview_chars (int | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | WakeResponse]
    """

    kwargs = _get_kwargs(
        after=after,
        wait=wait,
        scope=scope,
        max_=max_,
        preview_chars=preview_chars,
        format_=format_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    wait: int | Unset = UNSET,
    scope: str | Unset = UNSET,
    max_: int | Unset = UNSET,
    preview_chars: int | Unset = UNSET,
    format_: str | Unset = UNSET,
) -> Any | Problem | WakeResponse | None:
    """Wait for pending conflicts: returns at once when some are pending after `after`, else waits
    up to `wait` seconds for the first one (204 if none came). A conflict queued through any
    instance sharing the database wakes the wait (PostgreSQL LISTEN/NOTIFY).

    Args:
        after (str | Unset):
        wait (int | Unset):
        scope (str | Unset):
        max_ (int | Unset):
        preview_chars (int | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | WakeResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            after=after,
            wait=wait,
            scope=scope,
            max_=max_,
            preview_chars=preview_chars,
            format_=format_,
        )
    ).parsed
