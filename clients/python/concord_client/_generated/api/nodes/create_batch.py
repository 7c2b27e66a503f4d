from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.batch_request import BatchRequest
from ...models.batch_write_response import BatchWriteResponse
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: BatchRequest,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["detect"] = detect

    params["sensitivity"] = sensitivity

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/nodes/batch",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> BatchWriteResponse | Problem | None:
    if response.status_code == 201:
        response_201 = BatchWriteResponse.from_dict(response.json())

        return response_201

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
) -> Response[BatchWriteResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: BatchRequest,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
) -> Response[BatchWriteResponse | Problem]:
    """Store up to 1,000 nodes, and edges among them, in one transaction.

     Each node is checked for contradictions (unless `detect=false`) against the stored
    memories and against the batch's earlier nodes, as though the batch had been written one
    `POST /nodes` at a time in its order. Every item is validated first: any invalid item is
    422 with one error per problem, its `pointer` naming the item (`/nodes/3/title`,
    `/edges/0/target`), and nothing of the batch is written. The body may be up to 32 MiB.

    Args:
        detect (bool | Unset):
        sensitivity (str | Unset):
        body (BatchRequest): Memories to store together, with optional edges among them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BatchWriteResponse | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        detect=detect,
        sensitivity=sensitivity,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: BatchRequest,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
) -> BatchWriteResponse | Problem | None:
    """Store up to 1,000 nodes, and edges among them, in one transaction.

     Each node is checked for contradictions (unless `detect=false`) against the stored
    memories and against the batch's earlier nodes, as though the batch had been written one
    `POST /nodes` at a time in its order. Every item is validated first: any invalid item is
    422 with one error per problem, its `pointer` naming the item (`/nodes/3/title`,
    `/edges/0/target`), and nothing of the batch is written. The body may be up to 32 MiB.

    Args:
        detect (bool | Unset):
        sensitivity (str | Unset):
        body (BatchRequest): Memories to store together, with optional edges among them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BatchWriteResponse | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        detect=detect,
        sensitivity=sensitivity,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: BatchRequest,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
) -> Response[BatchWriteResponse | Problem]:
    """Store up to 1,000 nodes, and edges among them, in one transaction.

     Each node is checked for contradictions (unless `detect=false`) against the stored
    memories and against the batch's earlier nodes, as though the batch had been written one
    `POST /nodes` at a time in its order. Every item is validated first: any invalid item is
    422 with one error per problem, its `pointer` naming the item (`/nodes/3/title`,
    `/edges/0/target`), and nothing of the batch is written. The body may be up to 32 MiB.

    Args:
        detect (bool | Unset):
        sensitivity (str | Unset):
        body (BatchRequest): Memories to store together, with optional edges among them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BatchWriteResponse | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        detect=detect,
        sensitivity=sensitivity,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: BatchRequest,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
) -> BatchWriteResponse | Problem | None:
    """Store up to 1,000 nodes, and edges among them, in one transaction.

     Each node is checked for contradictions (unless `detect=false`) against the stored
    memories and against the batch's earlier nodes, as though the batch had been written one
    `POST /nodes` at a time in its order. Every item is validated first: any invalid item is
    422 with one error per problem, its `pointer` naming the item (`/nodes/3/title`,
    `/edges/0/target`), and nothing of the batch is written. The body may be up to 32 MiB.

    Args:
        detect (bool | Unset):
        sensitivity (str | Unset):
        body (BatchRequest): Memories to store together, with optional edges among them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BatchWriteResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            detect=detect,
            sensitivity=sensitivity,
        )
    ).parsed
