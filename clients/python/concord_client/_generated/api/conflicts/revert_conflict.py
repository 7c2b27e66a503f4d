from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.revert_body import RevertBody
from ...models.revert_response import RevertResponse
from ...types import Response


def _get_kwargs(
    id: UUID,
    *,
    body: RevertBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/conflicts/{id}/revert".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RevertResponse | None:
    if response.status_code == 200:
        response_200 = RevertResponse.from_dict(response.json())

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
) -> Response[Problem | RevertResponse]:
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
    body: RevertBody,
) -> Response[Problem | RevertResponse]:
    """Undo a conflict's resolution, whatever its strategy, in one transaction: nodes, edges,
    bodies, labels and credibility counters return to their state before it, and the conflict
    is pending again. A retry replays (`replayed: true`); a pending conflict is 409
    `/problems/not-resolved`; later changes in the way are 409 `/problems/revert-conflict`
    naming them (`changes`), and nothing is written.

    Args:
        id (UUID):
        body (RevertBody): Who reverts, and why.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RevertResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: RevertBody,
) -> Problem | RevertResponse | None:
    """Undo a conflict's resolution, whatever its strategy, in one transaction: nodes, edges,
    bodies, labels and credibility counters return to their state before it, and the conflict
    is pending again. A retry replays (`replayed: true`); a pending conflict is 409
    `/problems/not-resolved`; later changes in the way are 409 `/problems/revert-conflict`
    naming them (`changes`), and nothing is written.

    Args:
        id (UUID):
        body (RevertBody): Who reverts, and why.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RevertResponse
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: RevertBody,
) -> Response[Problem | RevertResponse]:
    """Undo a conflict's resolution, whatever its strategy, in one transaction: nodes, edges,
    bodies, labels and credibility counters return to their state before it, and the conflict
    is pending again. A retry replays (`replayed: true`); a pending conflict is 409
    `/problems/not-resolved`; later changes in the way are 409 `/problems/revert-conflict`
    naming them (`changes`), and nothing is written.

    Args:
        id (UUID):
        body (RevertBody): Who reverts, and why.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RevertResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: RevertBody,
) -> Problem | RevertResponse | None:
    """Undo a conflict's resolution, whatever its strategy, in one transaction: nodes, edges,
    bodies, labels and credibility counters return to their state before it, and the conflict
    is pending again. A retry replays (`replayed: true`); a pending conflict is 409
    `/problems/not-resolved`; later changes in the way are 409 `/problems/revert-conflict`
    naming them (`changes`), and nothing is written.

    Args:
        id (UUID):
        body (RevertBody): Who reverts, and why.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RevertResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
