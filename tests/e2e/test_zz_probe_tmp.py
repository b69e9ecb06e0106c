import asyncio, uuid
import grpc
import pytest
from mercado.v1 import match_pb2 as api
from mercado_client import Seat
from test_nodes import nodes, client_of, timely  # noqa: F401

pytestmark = pytest.mark.postgres

async def test_probe(nodes, client_of):
    one, two = nodes(2)
    c1 = client_of(one)
    match_id = await c1.create_match(players=2, seed=1)
    seats = [await client_of(one).join(match_id, n) for n in ("a", "b")]
    c2 = client_of(two)
    # keep it cached on two
    watch = asyncio.ensure_future(asyncio.wait_for(c2.view(match_id), 5))
    await watch
    stub2 = c2.stub
    bad = 0
    stale_views = 0
    for turn in range(30):
        to_move = (await seats[0].view()).to_move
        state = await seats[to_move].view()
        r = await seats[to_move].submit(state.legal_actions[0], state.version, uuid.uuid4().hex)
        call = stub2.StreamEvents(api.StreamEventsRequest(match_id=match_id, after_version=r.version))
        try:
            first = await asyncio.wait_for(call.read(), 5)
        except grpc.aio.AioRpcError as e:
            bad += 1
            print("DEBUG", e.code(), e.details())
        call.cancel()
    print("DEBUG bad", bad)
