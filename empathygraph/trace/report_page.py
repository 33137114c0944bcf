"""The Jinja2 template of the HTML trace report (a module, so it ships inside the package)."""

PAGE = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{{ title }}</title>
<style>
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1100px; padding: 1.5em; color: #222; }
  h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { margin-top: 1.8em; border-bottom: 2px solid #eee; }
  h3 { margin: 1.2em 0 .4em; } .meta { color: #666; }
  .problems { background: #fff4e5; border-left: 4px solid #e69500; padding: .5em 1em; }
  .chain { list-style: none; padding: 0; margin: 0; border-left: 3px solid #3b6ea8; }
  .chain li { padding: .25em .8em; } .chain b { display: inline-block; min-width: 12em; color: #3b6ea8; }
  .cues { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: .8em; }
  .cue { background: #f6f8fa; border-radius: 6px; padding: .6em .8em; }
  .cue h4 { margin: 0 0 .3em; } .cue dl { margin: 0; } .cue dt { color: #666; font-size: .85em; } .cue dd { margin: 0 0 .3em; }
  table.steps { border-collapse: collapse; width: 100%; } .steps td, .steps th { border-bottom: 1px solid #eee; padding: .3em .5em; text-align: left; vertical-align: top; }
  .steps td.num { text-align: right; font-variant-numeric: tabular-nums; } .bad { color: #b85450; } .warn { color: #b07000; }
  pre { white-space: pre-wrap; word-break: break-word; background: #f6f8fa; padding: .5em; border-radius: 4px; font-size: 12px; max-height: 24em; overflow: auto; }
  svg { max-width: 100%; height: auto; } .media { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
  .media figure { margin: 0; } video, img.face { max-width: 320px; } .person { font-style: italic; }
</style>
</head>
<body>
<h1>{{ title }}</h1>
<p class="meta">{{ source }} · {{ turns|length }} turn{{ "" if turns|length == 1 else "s" }} · session {{ sessions|join(", ") }}
  · {{ "%.1f"|format(total_s) }} s of steps · {{ total_tokens }} tokens · report made {{ created }}</p>
{% if problems %}
<div class="problems" id="problems"><b>Lines of the trace that could not be read:</b>
<ul>{% for problem in problems %}<li>{{ problem }}</li>{% endfor %}</ul></div>
{% endif %}

<section id="trajectory">
<h2>Emotion trajectory</h2>
{% if trajectory %}{{ trajectory }}{% else %}<p>No turn reached the emotion-cause agent.</p>{% endif %}
</section>

{% for view in turns %}{% set turn = view.turn %}
<section class="turn" id="turn-{{ turn.turn_index + 1 }}">
<h2>Turn {{ turn.turn_index + 1 }}</h2>
<p class="meta">session {{ turn.session_id }} · {{ "%.2f"|format(turn.latency_s) }} s · {{ turn.tokens.total }} tokens · {{ turn.retries }} retries</p>
{% if turn.user_text %}<p class="person">“{{ turn.user_text }}”</p>{% endif %}

<h3>Chain of empathy</h3>
<ul class="chain">{% for title, value in view.chain %}<li><b>{{ title }}</b> {{ value }}</li>{% endfor %}</ul>

<h3>Perception cues</h3>
<div class="cues">{% for name, found in view.cues %}
  <div class="cue"><h4>{{ name }}</h4><dl>{% for label, value in found %}<dt>{{ label }}</dt><dd>{{ value }}</dd>{% else %}<dd>nothing perceived</dd>{% endfor %}</dl></div>
{% endfor %}</div>

{% if view.media %}
<h3>Media</h3>
<div class="media">{% for item in view.media %}
  <figure><figcaption>{{ item.role }} · <code>{{ item.path }}</code></figcaption>
  {% if item.data_uri %}{% if item.tag == "audio" %}<audio controls preload="metadata" src="{{ item.data_uri }}"></audio>
  {% elif item.tag == "video" %}<video controls preload="metadata" src="{{ item.data_uri }}"></video>
  {% else %}<img class="face" alt="{{ item.role }}" src="{{ item.data_uri }}">{% endif %}
  {% else %}<p class="warn">{{ item.problem }}</p>{% endif %}</figure>
{% endfor %}</div>
{% endif %}

<h3>Latency timeline</h3>
{{ view.timeline }}

<h3>Steps</h3>
<table class="steps">
<thead><tr><th>step</th><th>kind</th><th>round</th><th>latency</th><th>tokens</th><th>retries</th><th>decisions</th></tr></thead>
<tbody>{% for step in turn.steps %}
<tr class="step" data-step="{{ step.step }}">
  <td><b class="{{ 'bad' if step.error else 'warn' if step.fallback else '' }}">{{ step.step }}</b></td>
  <td>{{ step.kind }}</td><td class="num">{{ step.round }}</td><td class="num">{{ "%.3f"|format(step.latency_s) }} s</td>
  <td class="num">{{ step.tokens.prompt }}+{{ step.tokens.completion }}</td><td class="num">{{ step.retries }}</td>
  <td>{% for label, value in step|decisions %}<div><span class="meta">{{ label }}:</span> {{ value }}</div>{% endfor %}
  <details><summary>input, prompt, raw output, output</summary>
    <pre>{{ step.input|pretty }}</pre>
    {% for message in step.prompt %}<pre><b>{{ message.role }}</b>: {{ message.content }}</pre>{% endfor %}
    {% for attempt in step.attempts %}<pre><b>raw {{ loop.index }}</b>{% if attempt.error %} <span class="bad">({{ attempt.error }})</span>{% endif %}: {{ attempt.raw }}</pre>{% endfor %}
    <pre>{{ step.output|pretty }}</pre>
  </details></td>
</tr>{% endfor %}</tbody>
</table>
</section>
{% endfor %}
</body>
</html>
"""
