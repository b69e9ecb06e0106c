"""The games the service hosts, one package each, behind one interface (``interface.py``)."""
