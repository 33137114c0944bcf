"""``empathygraph serve``: the listener over HTTP, and a web page to talk to it.

``serve.app.create_app`` builds the FastAPI application; the package's parts each do one
thing: ``config`` (settings), ``files`` (each session's folder), ``uploads`` (a turn's
request, checked before anything is decoded), ``gate`` (turns at once, and the queue),
``wire`` (turn events as Server-Sent Events), ``turns`` (a turn run beside the event loop),
``security`` (bearer token, body limit), ``problems`` (errors as JSON), ``static/`` (the page).
"""
