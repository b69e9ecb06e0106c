"""The terminal client (``mercado play``) and the fairness check of a finished match (``mercado verify``).

It ships with the server (the ``mercado`` distribution): its boards and the check replay matches
through the rules in ``server.games``. It talks to servers through the client library,
``mercado_client``, like any other client.
"""
