"""Everything that sends or reads messages: the outbox (``outbox``) and the messages it
carries (``message``, ``pictures``), the one composer of every email (``compose``), what
is emailed when (``notify``), moves by email reply (``inbound``, ``listener``) and seats'
webhooks (``webhooks``). The game log never imports this package: ``notify`` hears of new
events through ``pbem.signals``."""
