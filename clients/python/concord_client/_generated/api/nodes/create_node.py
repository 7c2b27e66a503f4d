from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_node_request import CreateNodeRequest
from ...models.node_restated_response import NodeRestatedResponse
from ...models.node_write_response import NodeWriteResponse
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreateNodeRequest,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
    allow_duplicate: bool | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["detect"] = detect

    params["sensitivity"] = sensitivity

    params["allow_duplicate"] = allow_duplicate

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/nodes",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> NodeRestatedResponse | NodeWriteResponse | Problem | None:
    if response.status_code == 200:
        response_200 = NodeRestatedResponse.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = NodeWriteResponse.from_dict(response.json())

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
) -> Response[NodeRestatedResponse | NodeWriteResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateNodeRequest,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
    allow_duplicate: bool | Unset = UNSET,
) -> Response[NodeRestatedResponse | NodeWriteResponse | Problem]:
    r"""Store a node; detection runs unless `detect=false`. A node whose title and text equal an
    active memory's of the same scope (whitespace and case aside) is not stored again: the
    reply is 200 with that memory, `\"restated\": true`, and the sources that restated it
    (`?allow_duplicate=true` stores a copy).

    Args:
        detect (bool | Unset):
        sensitivity (str | Unset):
        allow_duplicate (bool | Unset):
        body (CreateNodeRequest): A node to store.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NodeRestatedResponse | NodeWriteResponse | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        detect=detect,
        sensitivity=sensitivity,
        allow_duplicate=allow_duplicate,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: CreateNodeRequest,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
    allow_duplicate: bool | Unset = UNSET,
) -> NodeRestatedResponse | NodeWriteResponse | Problem | None:
    r"""Store a node; detection runs unless `detect=false`. A node whose title and text equal an
    active memory's of the same scope (whitespace and case aside) is not stored again: the
    reply is 200 with that memory, `\"restated\": true`, and the sources that restated it
    (`?allow_duplicate=true` stores a copy).

    Args:
        detect (bool | Unset):
        sensitivity (str | Unset):
        allow_duplicate (bool | Unset):
        body (CreateNodeRequest): A node to store.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NodeRestatedResponse | NodeWriteResponse | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        detect=detect,
        sensitivity=sensitivity,
        allow_duplicate=allow_duplicate,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateNodeRequest,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
    allow_duplicate: bool | Unset = UNSET,
) -> Response[NodeRestatedResponse | NodeWriteResponse | Problem]:
    r"""Store a node; detection runs unless `detect=false`. A node whose title and text equal an
    active memory's of the same scope (whitespace and case aside) is not stored again: the
    reply is 200 with that memory, `\"restated\": true`, and the sources that restated it
    (`?allow_duplicate=true` stores a copy).

    Args:
        detect (bool | Unset):
        sensitivity (str | Unset):
        allow_duplicate (bool | Unset):
        body (CreateNodeRequest): A node to store.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NodeRestatedResponse | NodeWriteResponse | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        detect=detect,
        sensitivity=sensitivity,
        allow_duplicate=allow_duplicate,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: CreateNodeRequest,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
    allow_duplicate: bool | Unset = UNSET,
) -> NodeRestatedResponse | NodeWriteResponse | Problem | None:
    r"""Store a node; detection runs unless `detect=false`. A node whose title and text equal an
    active memory's of the same scope (whitespace and case aside) is not stored again: the
    reply is 200 with that memory, `\"restated\": true`, and the sources that restated it
    (`?allow_duplicate=true` stores a copy).

    Args:
        detect (bool | Unset):
        sensitivity (str | Unset):
        allow_duplicate (bool | Unset):
        body (CreateNodeRequest): A node to store.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NodeRestatedResponse | NodeWriteResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            detect=detect,
            sensitivity=sensitivity,
            allow_duplicate=allow_duplicate,
        )
    ).parsed
