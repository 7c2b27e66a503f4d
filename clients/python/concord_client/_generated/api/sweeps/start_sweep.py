from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.sweep_dto import SweepDto
from ...models.sweep_request import SweepRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: None | SweepRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/sweeps",
    }

    if isinstance(body, SweepRequest):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SweepDto | None:
    if response.status_code == 202:
        response_202 = SweepDto.from_dict(response.json())

        return response_202

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | SweepDto]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: None | SweepRequest | Unset = UNSET,
) -> Response[Problem | SweepDto]:
    """Start a sweep (admin only): every active memory stored now (or those of `scope`, `label`,
    `since`) is compared with the candidates a write of it would have found, and the
    contradictions not yet queued are queued, as detection at write time would have queued
    them. Pairs queued before or with a remembered verdict are passed over. It runs in the
    background, and goes on after a restart where it stopped; follow it with
    `GET /sweeps/{id}` or the event stream. The body may be omitted.

    Args:
        body (None | SweepRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SweepDto]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: None | SweepRequest | Unset = UNSET,
) -> Problem | SweepDto | None:
    """Start a sweep (admin only): every active memory stored now (or those of `scope`, `label`,
    `since`) is compared with the candidates a write of it would have found, and the
    contradictions not yet queued are queued, as detection at write time would have queued
    them. Pairs queued before or with a remembered verdict are passed over. It runs in the
    background, and goes on after a restart where it stopped; follow it with
    `GET /sweeps/{id}` or the event stream. The body may be omitted.

    Args:
        body (None | SweepRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SweepDto
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: None | SweepRequest | Unset = UNSET,
) -> Response[Problem | SweepDto]:
    """Start a sweep (admin only): every active memory stored now (or those of `scope`, `label`,
    `since`) is compared with the candidates a write of it would have found, and the
    contradictions not yet queued are queued, as detection at write time would have queued
    them. Pairs queued before or with a remembered verdict are passed over. It runs in the
    background, and goes on after a restart where it stopped; follow it with
    `GET /sweeps/{id}` or the event stream. The body may be omitted.

    Args:
        body (None | SweepRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SweepDto]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: None | SweepRequest | Unset = UNSET,
) -> Problem | SweepDto | None:
    """Start a sweep (admin only): every active memory stored now (or those of `scope`, `label`,
    `since`) is compared with the candidates a write of it would have found, and the
    contradictions not yet queued are queued, as detection at write time would have queued
    them. Pairs queued before or with a remembered verdict are passed over. It runs in the
    background, and goes on after a restart where it stopped; follow it with
    `GET /sweeps/{id}` or the event stream. The body may be omitted.

    Args:
        body (None | SweepRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SweepDto
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
