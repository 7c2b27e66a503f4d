from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.report import Report
from ...models.topic_check_request import TopicCheckRequest
from ...types import Response


def _get_kwargs(
    *,
    body: TopicCheckRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/conflicts/check",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Report | None:
    if response.status_code == 200:
        response_200 = Report.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Report]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: TopicCheckRequest,
) -> Response[Problem | Report]:
    """Check a topic for conflicts: full-text search finds its nodes, every pair is judged, and
    the report is stored (see `GET /reports`). Nothing is queued. With `as_of` or `known_at`,
    the report describes the memories that held at `as_of` as concord knew them at `known_at`.

    Args:
        body (TopicCheckRequest): A topic to check.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Report]
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
    body: TopicCheckRequest,
) -> Problem | Report | None:
    """Check a topic for conflicts: full-text search finds its nodes, every pair is judged, and
    the report is stored (see `GET /reports`). Nothing is queued. With `as_of` or `known_at`,
    the report describes the memories that held at `as_of` as concord knew them at `known_at`.

    Args:
        body (TopicCheckRequest): A topic to check.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Report
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: TopicCheckRequest,
) -> Response[Problem | Report]:
    """Check a topic for conflicts: full-text search finds its nodes, every pair is judged, and
    the report is stored (see `GET /reports`). Nothing is queued. With `as_of` or `known_at`,
    the report describes the memories that held at `as_of` as concord knew them at `known_at`.

    Args:
        body (TopicCheckRequest): A topic to check.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Report]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: TopicCheckRequest,
) -> Problem | Report | None:
    """Check a topic for conflicts: full-text search finds its nodes, every pair is judged, and
    the report is stored (see `GET /reports`). Nothing is queued. With `as_of` or `known_at`,
    the report describes the memories that held at `as_of` as concord knew them at `known_at`.

    Args:
        body (TopicCheckRequest): A topic to check.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Report
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
