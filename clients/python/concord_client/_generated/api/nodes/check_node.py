from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.check_response import CheckResponse
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["detect"] = detect

    params["sensitivity"] = sensitivity

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/nodes/{id}/check".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CheckResponse | Problem | None:
    if response.status_code == 200:
        response_200 = CheckResponse.from_dict(response.json())

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
) -> Response[CheckResponse | Problem]:
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
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
) -> Response[CheckResponse | Problem]:
    """Run detection for a stored node against the active set, without writing anything.

    Args:
        id (UUID):
        detect (bool | Unset):
        sensitivity (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckResponse | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        detect=detect,
        sensitivity=sensitivity,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
) -> CheckResponse | Problem | None:
    """Run detection for a stored node against the active set, without writing anything.

    Args:
        id (UUID):
        detect (bool | Unset):
        sensitivity (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckResponse | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        detect=detect,
        sensitivity=sensitivity,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
) -> Response[CheckResponse | Problem]:
    """Run detection for a stored node against the active set, without writing anything.

    Args:
        id (UUID):
        detect (bool | Unset):
        sensitivity (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckResponse | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        detect=detect,
        sensitivity=sensitivity,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    detect: bool | Unset = UNSET,
    sensitivity: str | Unset = UNSET,
) -> CheckResponse | Problem | None:
    """Run detection for a stored node against the active set, without writing anything.

    Args:
        id (UUID):
        detect (bool | Unset):
        sensitivity (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckResponse | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            detect=detect,
            sensitivity=sensitivity,
        )
    ).parsed
