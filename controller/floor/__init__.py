"""``railguard floor``: the venue floor console, a web application beside the venue logger.

It reads only what the venue side may see: the tables' redacted live topics (state, status,
alerts, and the ``alert_ack`` events) and completed hand records from the venue logger's
store. Acknowledging an alert is the venue command ``ack_alert`` over the MQTT contract.
See docs/floor.md.
"""
