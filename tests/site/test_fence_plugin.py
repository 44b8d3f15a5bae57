"""The markdown-it-py plugin on its own: info strings, retyping, ids, escaping, any pipeline."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
from markdown_it import MarkdownIt

from posecode_ssg.site.markdown import namespace_ids, parse_info, posecode_env, posecode_plugin, script_json

BLOCK = 'posecode posture "Nod"\n  rig humanoid\n  step "Nod" 1s linear:\n    neck: flex 15\n'


@pytest.mark.parametrize("info, language, attrs", [
    ("posecode", "posecode", {}),
    ("POSECODE", "posecode", {}),
    ('posecode title="Morning squat" autoplay=false view=front', "posecode",
     {"title": "Morning squat", "autoplay": False, "view": "front"}),
    ("posecode title='single quoted' autoplay", "posecode", {"title": "single quoted", "autoplay": True}),
    ('{.posecode title="Hinge drill"}', "posecode", {"title": "Hinge drill"}),
    ('{.Posecode #anchor .extra view=side}', "posecode", {"view": "side"}),
    ("posecode-draft", "posecode-draft", {}),
    ("python title=x", "python", {}),
    ("", "", {}),
])
def test_parse_info(info, language, attrs):
    result = parse_info(info)
    assert result.language == language and result.attrs == attrs and result.problems == []


def test_parse_info_problems():
    result = parse_info('posecode view=top autoplay=maybe colour=red title')
    assert result.attrs == {}
    assert len(result.problems) == 4
    assert 'posecode title="unclosed' and parse_info('posecode title="unclosed').problems


def test_plugin_in_plain_pipeline_compiles_and_reports_document_lines():
    md = MarkdownIt("commonmark").use(posecode_plugin)
    env: dict = {}
    # (closed inside the quote: a closing fence outside it would leave this one unclosed)
    text = "# Page\n\n> ```posecode\n> " + BLOCK.replace("flex 15", "flx 15").replace("\n", "\n> ").rstrip("> ") + "> ```\n"
    html = md.render(text, env)
    assert 'class="posecode-error"' in html and "flx" in html
    (diag,) = [d for d in posecode_env(env).diagnostics if d["severity"] == "error"]
    assert diag["line"] == 7  # body line 4 of a fence opened on line 3
    assert diag["column"] == text.split("\n")[6].index("flx") + 1


def test_fence_attribute_warnings_point_at_their_word():
    """Fresh-user trial: the caret of a fence-attribute warning was at column 1 of the opener."""
    md = MarkdownIt("commonmark").use(posecode_plugin, defer=True)
    env: dict = {}
    opener = '- ```posecode title="colour maybe" view=sideways colour=red autoplay=maybe'
    md.parse("# Page\n\n" + opener + "\n  " + BLOCK.replace("\n", "\n  ") + "```\n", env)
    got = [(d["line"], d["column"]) for d in posecode_env(env).diagnostics if d["code"] == "fence-attribute"]
    assert got == [(3, opener.index("sideways") + 1), (3, opener.index("colour=") + 1),
                   (3, opener.index("=maybe") + 2)]


def test_identical_blocks_get_distinct_ids_and_headings_never_collide():
    md = MarkdownIt("commonmark").use(posecode_plugin)
    text = "# posecode figure 1\n\n```posecode\n" + BLOCK + "```\n\n```posecode\n" + BLOCK + "```\n"
    html = md.render(text)
    ids = re.findall(r'id="([^"]+)"', html)
    assert len(ids) == len(set(ids)) and "posecode-figure-1" in ids and "posecode-figure-2" in ids
    assert html.count("<posecode-figure") == 2


def test_script_json_escapes_and_round_trips():
    data = {"a": "</script><!-- & > \u2028\u2029 é"}
    text = script_json(data)
    assert not re.search(r"</script|<!--|[<>&\u2028\u2029]", text, re.I)
    assert json.loads(text) == data and "é" in text


def test_compiled_figure_carries_its_motion_as_script_safe_text():
    from posecode_ssg.site.figures import CompiledFigure, compile_figure
    from posecode_ssg.site.markdown import FenceInfo, figure_html

    source = ('posecode exercise "A </script> & <!-- b"\n  rig humanoid\n  pose start = standing\n'
              '  step "Up" 1s drive:\n    shoulders: flex 90\n')
    figure = compile_figure(source, {})
    assert not figure.errors and figure.motion_json is not None
    assert not re.search(r"</script|<!--|[<>&]", figure.motion_json, re.I)
    motion = json.loads(figure.motion_json)
    assert motion == figure.motion and motion["name"] == "A </script> & <!-- b"
    # the cache's round trip keeps the text as it is; the page inlines it unchanged
    again = CompiledFigure.from_dict(json.loads(json.dumps(figure.to_dict())))
    assert again.motion_json == figure.motion_json
    html = figure_html(again, FenceInfo("posecode", {}), "f1")
    assert f'<script type="application/json">{figure.motion_json}</script>' in html
    # a figure from another compile_figure (a plain motion dict, no text) is encoded the same way
    other = SimpleNamespace(**{k: v for k, v in again.to_dict().items() if k != "motion_json"},
                            motion=motion, errors=[])
    assert figure_html(other, FenceInfo("posecode", {}), "f1") == html
    # setting ``motion`` stores its text
    again.motion = {"k": "<"}
    assert again.motion_json == '{"k":"\\u003c"}' and again.motion == {"k": "<"}


def test_ordinary_fence_class_is_sanitised():
    md = MarkdownIt("commonmark").use(posecode_plugin)
    html = md.render('```{.python title="x"}\nprint(1)\n```\n\n```js "quoted"\nx\n```\n')
    assert '<code class="language-python">' in html and '<code class="language-js">' in html


def test_namespace_ids_prefixes_whole_word_ids_and_their_references_only():
    svg = ('<svg aria-labelledby="a-t b"><title id="a-t">T</title><g id="b"/>'
           '<use href="#b"/><text>b2 xb a-t-x a-t</text></svg>')
    out = namespace_ids(svg, "f1")
    # every whole-word occurrence of an id is renamed: definitions, references, text equal to it
    assert out == ('<svg aria-labelledby="f1-a-t f1-b"><title id="f1-a-t">T</title><g id="f1-b"/>'
                   '<use href="#f1-b"/><text>b2 xb a-t-x f1-a-t</text></svg>')
    # ids stay unique when two posters share a page
    both = namespace_ids(svg, "f1") + namespace_ids(svg, "f2")
    found = re.findall(r'\bid="([^"]+)"', both)
    assert len(found) == len(set(found)) == 4
    assert namespace_ids("<svg><g/></svg>", "f1") == "<svg><g/></svg>"
