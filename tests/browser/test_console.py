"""The review console (`GET /review`) end to end, in Chromium, against a running concord.
Every page fixture also checks that the page asked no host but concord's own and raised no
script error."""

import datetime
import os
import re
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import API_KEY, Api, Server
from playwright.sync_api import expect

LONG_INTRO = " ".join(
    f"Paragraph {i}: the cache sits in front of the catalogue service and is shared by every "
    f"worker in the pool, so its settings matter for latency and for load on the database."
    for i in range(1, 31)
)


def goto_queue(page, base, label, extra=""):
    page.goto(f"{base}/review?label={label}{extra}")
    expect(page.locator("#live")).to_have_text(re.compile("Live updates (on|reconnected)"))
    # The first page of the queue is in: a filter applied before it could race the page's
    # own first load.
    expect(page.locator("#queue-summary")).to_have_text(re.compile("match|shown"))


def item(page, title):
    return page.locator("#queue-list li").filter(has_text=title)


def open_item(page, title):
    item(page, title).get_by_role("button").click()
    expect(page.locator("#conflict-title")).to_have_text(title)
    expect(page.locator("#conflict-title")).to_be_focused()


def test_the_root_redirects_to_the_console_and_the_queue_loads_oldest_first(page, server, api, label):
    # Arrange: three conflicts, oldest first.
    titles = [f"Queue {n} {label}" for n in range(3)]
    for n, t in enumerate(titles):
        api.conflict(label, f"The pool size is {n + 2} workers", f"The pool size is {n + 20} workers", title=t)

    # Act
    page.goto(f"{server.base}/")
    expect(page).to_have_url(re.compile(r"/review"))
    page.get_by_label("Label", exact=True).fill(label)
    page.get_by_role("button", name="Apply").click()

    # Assert: order, type, recommendation, labels, counts.
    items = page.locator("#queue-list li")
    expect(items).to_have_count(3)
    expect(items.locator(".item-title")).to_have_text(titles)
    expect(items.first).to_contain_text("numeric mismatch")
    expect(items.first).to_contain_text("just now")
    expect(items.first).to_contain_text("→")
    expect(items.first.locator(".label")).to_have_text([label])
    stats = api.get("/conflicts/stats")
    expect(page.locator("#counts")).to_contain_text(f"{stats['pending']} pending · {stats['resolved']} resolved")
    expect(page.locator("#queue-summary")).to_contain_text("3 pending match")

    # Newest first on request.
    page.get_by_label("Order", exact=True).select_option("newest")
    expect(items.locator(".item-title")).to_have_text(list(reversed(titles)))

    # Status filter: none of them is resolved.
    page.get_by_label("Status", exact=True).select_option("resolved")
    expect(items).to_have_count(0)
    expect(page.locator("#queue-summary")).to_contain_text("No resolved conflicts match")


def test_the_queue_pages_through_the_cursor_and_j_k_move_between_conflicts(page, server, api, label):
    # Arrange
    titles = [f"Paged {n} {label}" for n in range(3)]
    for n, t in enumerate(titles):
        api.conflict(label, f"The batch size is {n + 2} rows", f"The batch size is {n + 40} rows", title=t)

    # Act: two per page.
    goto_queue(page, server.base, label, "&limit=2")
    items = page.locator("#queue-list li")
    expect(items).to_have_count(2)
    page.get_by_role("button", name="Load more").click()

    # Assert
    expect(items.locator(".item-title")).to_have_text(titles)
    expect(page.get_by_role("button", name="Load more")).to_be_hidden()
    page.keyboard.press("j")
    expect(page.locator("#conflict-title")).to_have_text(titles[0])
    page.keyboard.press("j")
    expect(page.locator("#conflict-title")).to_have_text(titles[1])
    page.keyboard.press("k")
    expect(page.locator("#conflict-title")).to_have_text(titles[0])
    expect(items.first).to_have_class(re.compile("selected"))


def test_a_conflict_shows_both_full_bodies_marks_the_difference_and_the_context(page, server, api, label):
    # Arrange: long bodies that differ in one value, from two sources.
    title = f"Cache TTL {label}"
    old_body = f"{LONG_INTRO}\n\nThe cache TTL is 30 seconds."
    new_body = f"{LONG_INTRO}\n\nThe cache TTL is 60 seconds."
    api.node(title, old_body, [label, "cache"], source="file:docs/cache.md", confidence=0.7,
             observed_at="2026-03-02T09:15:00.000Z", scope=label)
    hit = api.node(title, new_body, [label, "cache"], source="agent:ops", confidence=0.9,
                   observed_at="2026-06-01T14:00:00.000Z", scope=label)["conflicts"][0]
    c = api.get(f"/conflicts/{hit['conflict_id']}")

    # Act
    goto_queue(page, server.base, label)
    open_item(page, title)

    # Assert: full bodies, side by side.
    old_side = page.locator(".side.old")
    new_side = page.locator(".side.new")
    assert old_side.locator(".body").inner_text() == old_body
    assert new_side.locator(".body").inner_text() == new_body
    old_box = old_side.bounding_box()
    new_box = new_side.bounding_box()
    assert new_box["x"] > old_box["x"] + old_box["width"] / 2, "sides are not side by side"
    # The word-level diff marks only what differs.
    expect(old_side.locator("del")).to_have_text(["30"])
    expect(new_side.locator("ins")).to_have_text(["60"])
    # The detection explanation's quoted spans are highlighted.
    expect(page.locator(".explanation")).to_contain_text(c["detection"]["explanation"])
    expect(old_side.locator(".evidence")).not_to_have_count(0)
    assert "30" in " ".join(old_side.locator(".evidence").all_inner_texts())
    # Each side's provenance.
    expect(old_side).to_contain_text("file:docs/cache.md")
    expect(new_side).to_contain_text("agent:ops")
    expect(old_side).to_contain_text("0.70")
    expect(new_side).to_contain_text("0.90")
    expect(old_side).to_contain_text("2026-03-02 09:15:00 UTC")
    expect(old_side.locator(".facts")).to_contain_text("Credibility")
    expect(old_side.locator(".facts")).to_contain_text("Evidence strength")
    expect(old_side.locator(".facts")).to_contain_text("0.50 (no cue either way)")
    expect(old_side.locator(".facts")).to_contain_text("fact")
    expect(old_side.locator(".facts")).to_contain_text("active")
    expect(new_side.locator(".facts")).to_contain_text("cache")
    # The recommendation with its reasoning, and a history panel.
    expect(page.locator(".recommendation")).to_contain_text(c["recommendation"]["reasoning"])
    expect(page.locator("#history-body")).not_to_have_text("Loading…")
    shown = page.locator("#conflict").inner_text()
    assert "null" not in shown and "undefined" not in shown, shown


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def expect_actions_in_words(box, summaries):
    """Each action of `summaries` is a line in `box` that names memories in words, never by
    id; the API's own summary, ids and all, is the line's title (shown on hover)."""
    assert summaries
    lines = box.locator("li.action")
    expect(lines).to_have_count(len(summaries))
    assert sorted(lines.evaluate_all("els => els.map(e => e.title)")) == sorted(summaries)
    text = box.inner_text()
    assert not UUID.search(text), text


def decide_and_check_report(page, api, key, conflict_id, expected):
    page.keyboard.press(key)
    expect(page.locator("#report")).to_contain_text(f'as "{expected}"')
    c = api.get(f"/conflicts/{conflict_id}")
    assert c["status"] == "resolved"
    expect_actions_in_words(page.locator("#report"), [a["summary"] for a in c["actions"]])
    return c


def test_keys_1_2_3_resolve_and_the_database_agrees(recorded, server, api, label):
    page = recorded.page
    # Arrange
    a = api.conflict(label, "The worker count is 4", "The worker count is 8", title=f"A {label}")
    b = api.conflict(label, "The queue depth is 100", "The queue depth is 500", title=f"B {label}")
    c = api.conflict(label, "The retry limit is 3", "The retry limit is 7", title=f"C {label}")
    goto_queue(page, server.base, label)
    open_item(page, f"A {label}")

    # Act 1, with a note, and the reviewer's name asked once.
    page.keyboard.press("n")
    expect(page.locator("#note")).to_be_focused()
    page.keyboard.type("checked the deploy log")
    page.keyboard.press("Escape")
    page.keyboard.press("1")
    expect(page.locator("#name-dialog")).to_be_visible()
    page.locator("#name-input").fill("Ada")
    page.keyboard.press("Enter")
    expect(page.locator("#report")).to_contain_text('as "new is current"')

    # Assert 1: the old node is dormant, superseded by the new.
    got = api.get(f"/conflicts/{a['id']}")
    assert (got["resolution"], got["resolved_by"], got["note"]) == ("new_is_current", "Ada", "checked the deploy log")
    assert api.get(f"/nodes/{a['old_node']['id']}")["state"] == "dormant"
    expect_actions_in_words(page.locator("#report"), [x["summary"] for x in got["actions"]])
    # The view moved on to the next conflict, and the queue dropped the decided one.
    expect(page.locator("#conflict-title")).to_have_text(f"B {label}")
    expect(page.locator("#queue-list li")).to_have_count(2)

    # Act + Assert 2: old is current; the name is not asked again.
    got = decide_and_check_report(page, api, "2", b["id"], "old is current")
    assert got["resolved_by"] == "Ada"
    assert api.get(f"/nodes/{b['new_node']['id']}")["state"] == "dormant"
    assert api.get(f"/nodes/{b['old_node']['id']}")["state"] == "active"
    expect(page.locator("#conflict-title")).to_have_text(f"C {label}")

    # Act + Assert 3: keep both; both stay active, linked by relates_to.
    decide_and_check_report(page, api, "3", c["id"], "keep both")
    assert api.get(f"/nodes/{c['old_node']['id']}")["state"] == "active"
    assert api.get(f"/nodes/{c['new_node']['id']}")["state"] == "active"
    edges = api.get(f"/nodes/{c['old_node']['id']}/edges?direction=out&kind=relates_to")
    assert [e["target_id"] for e in edges["items"]] == [c["new_node"]["id"]]
    expect(page.locator("#queue-list li")).to_have_count(0)
    expect(page.locator("#empty")).to_contain_text("The queue is empty")
    # Everything it asked for was concord's own API (the fixture checks no other host).
    paths = {urlsplit(u).path for u in recorded.requests}
    assert {"/review", "/review/app.js", "/review/diff.js", "/review/app.css", "/conflicts",
            "/conflicts/stats", "/sources", "/events", f"/conflicts/{a['id']}/resolve"} <= paths, paths
    stats = api.get("/conflicts/stats")
    expect(page.locator("#counts")).to_contain_text(f"{stats['pending']} pending")


def test_key_4_merges_with_the_prefilled_text_edited(page, server, api, label):
    # Arrange
    c = api.conflict(label, "The log level is info", "The log level is debug", title=f"Merge {label}")
    goto_queue(page, server.base, label)
    open_item(page, f"Merge {label}")

    # Act: the editor opens with what the server would write.
    page.keyboard.press("4")
    editor = page.get_by_label("Merged text")
    expect(editor).to_be_focused()
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    assert editor.input_value() == (
        f"The log level is info\n\n--- Merged ({today}) ---\n\nThe log level is debug"
    )
    editor.fill("The log level is debug in staging and info in production.")
    editor.press("Control+Enter")

    # Assert
    expect(page.locator("#report")).to_contain_text('as "merge"')
    decided = api.get(f"/conflicts/{c['id']}")
    assert decided["resolution"] == "merge"
    assert decided["resolved_by"] == "Test Reviewer"
    old = api.get(f"/nodes/{c['old_node']['id']}")
    assert old["body"] == "The log level is debug in staging and info in production."
    assert api.call("GET", f"/nodes/{c['new_node']['id']}").status == 404
    expect_actions_in_words(page.locator("#report"), [x["summary"] for x in decided["actions"]])
    # The deleted new memory is still named by its title.
    expect(page.locator("#report")).to_contain_text(f'the new memory "Merge {label}"')


def test_cancelling_the_merge_editor_changes_nothing(page, server, api, label):
    c = api.conflict(label, "The shard count is 4", "The shard count is 16", title=f"Cancel {label}")
    goto_queue(page, server.base, label)
    open_item(page, f"Cancel {label}")

    page.keyboard.press("4")
    expect(page.locator("#merge-dialog")).to_be_visible()
    page.keyboard.press("Escape")

    expect(page.locator("#merge-dialog")).to_be_hidden()
    expect(page.locator("#conflict-title")).to_be_focused()
    assert api.get(f"/conflicts/{c['id']}")["status"] == "pending"


def test_a_conflict_queued_through_the_api_appears_live(page, server, api, label):
    # Arrange: an empty queue for this label, and a marker that a reload would erase.
    goto_queue(page, server.base, label)
    expect(page.locator("#queue-list li")).to_have_count(0)
    page.evaluate("window.__notReloaded = true")

    # Act
    api.conflict(label, "The upload limit is 10 MB", "The upload limit is 25 MB", title=f"Live {label}")

    # Assert
    expect(item(page, f"Live {label}")).to_be_visible()
    assert page.evaluate("window.__notReloaded") is True
    open_item(page, f"Live {label}")
    expect(page.locator(".side.new ins")).to_have_text(["25"])


def test_a_409_from_a_conflict_resolved_elsewhere_is_shown_and_the_view_recovers(page, server, api, label):
    # Arrange: this page's live stream is cut (so it cannot learn of the other decision first).
    c = api.conflict(label, "The backup hour is 2", "The backup hour is 4", title=f"Elsewhere {label}")
    page.route("**/events", lambda route: route.abort())
    page.goto(f"{server.base}/review?label={label}")
    expect(page.locator("#live")).to_contain_text("Live updates dropped; reconnecting")
    open_item(page, f"Elsewhere {label}")
    api.post(f"/conflicts/{c['id']}/resolve", {"resolution": "keep_both", "resolved_by": "Grace"})

    # Act
    page.keyboard.press("1")

    # Assert: plain words with the server's detail, then the current state.
    problem = page.locator("#problem")
    expect(problem).to_be_visible()
    expect(problem).to_contain_text('Someone else already resolved this conflict as "keep both"')
    expect(page.locator(".resolved")).to_contain_text('Resolved as "keep both" by Grace')
    expect(page.get_by_role("button", name="1 New is current")).to_be_disabled()
    expect(page.locator("#queue-list li")).to_have_count(0)
    assert api.get(f"/conflicts/{c['id']}")["resolution"] == "keep_both"

    # The stream comes back and says so.
    page.unroute("**/events")
    expect(page.locator("#live")).to_have_text("Live updates reconnected", timeout=20_000)


def test_a_stale_conflict_409_is_shown_in_plain_words(page, server, api, label):
    # Arrange: the old node went dormant elsewhere, so "old is current" cannot hold.
    c = api.conflict(label, "The cron runs at 01:00", "The cron runs at 03:00", title=f"Stale {label}")
    goto_queue(page, server.base, label)
    open_item(page, f"Stale {label}")
    api.ok("PATCH", f"/nodes/{c['old_node']['id']}", {"state": "dormant"})

    # Act
    page.keyboard.press("2")

    # Assert
    expect(page.locator("#problem")).to_contain_text("This conflict is out of date")
    expect(page.locator(".side.old .facts")).to_contain_text("dormant")
    assert api.get(f"/conflicts/{c['id']}")["status"] == "pending"


def test_u_undoes_the_last_resolution(page, server, api, label):
    # Arrange
    c = api.conflict(label, "The page size is 20", "The page size is 50", title=f"Undo {label}")
    goto_queue(page, server.base, label)
    open_item(page, f"Undo {label}")
    page.keyboard.press("1")
    expect(page.locator("#report")).to_contain_text('as "new is current"')
    assert api.get(f"/nodes/{c['old_node']['id']}")["state"] == "dormant"

    # Act
    page.keyboard.press("u")

    # Assert
    expect(page.locator("#report")).to_contain_text("Undid")
    expect(page.locator("#conflict-title")).to_have_text(f"Undo {label}")
    assert api.get(f"/conflicts/{c['id']}")["status"] == "pending"
    assert api.get(f"/nodes/{c['old_node']['id']}")["state"] == "active"
    expect(item(page, f"Undo {label}")).to_be_visible()


def test_the_history_panel_lists_resolutions_and_reverts(page, server, api, label):
    # Arrange: resolved, reverted, and resolved again, all through the API.
    c = api.conflict(label, "The quota is 100 calls", "The quota is 200 calls", title=f"History {label}")
    api.post(f"/conflicts/{c['id']}/resolve", {"resolution": "new_is_current", "resolved_by": "Ada"})
    api.post(f"/conflicts/{c['id']}/revert", {"reverted_by": "Grace"})
    api.post(f"/conflicts/{c['id']}/resolve", {"resolution": "keep_both", "resolved_by": "Lin"})

    # Act
    page.goto(f"{server.base}/review?status=all&label={label}#{c['id']}")

    # Assert: oldest first (a leading "queued" entry is allowed).
    events = page.locator("#history-body ol.events > li")
    expect(events.filter(has_text="Lin")).to_have_count(1)
    texts = [t for t in events.all_inner_texts() if not t.split(" UTC ")[-1].startswith("queued")]
    assert len(texts) == 3, texts
    assert "resolved" in texts[0] and "Ada" in texts[0] and "new is current" in texts[0], texts
    assert "reverted" in texts[1] and "Grace" in texts[1], texts
    assert "resolved" in texts[2] and "Lin" in texts[2] and "keep both" in texts[2], texts


def test_the_key_prompt_guards_the_console_when_keys_are_set(make_page, keyed_server):
    # Arrange
    rec = make_page(keyed_server.base)
    page = rec.page
    keyed = Api(keyed_server.base, key=API_KEY)
    label = f"k{uuid.uuid4().hex[:8]}"

    # Act: the page itself loads without a key and asks for one.
    page.goto(f"{keyed_server.base}/review?label={label}")
    dialog = page.locator("#key-dialog")
    expect(dialog).to_be_visible()
    expect(page.get_by_label("Key", exact=True)).to_be_focused()
    page.get_by_label("Key", exact=True).fill("wrong-key")
    page.keyboard.press("Enter")
    expect(dialog).to_contain_text("That key was not accepted")
    page.get_by_label("Key", exact=True).fill(API_KEY)
    page.keyboard.press("Enter")

    # Assert: the console works with the key, live updates included.
    expect(dialog).to_be_hidden()
    expect(page.locator("#live")).to_have_text(re.compile("Live updates (on|reconnected)"))
    keyed.conflict(label, "The timeout is 5 s", "The timeout is 9 s", title=f"Keyed {label}")
    expect(item(page, f"Keyed {label}")).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('concord.key')") == API_KEY
    assert page.evaluate("Object.keys(localStorage).filter(k => localStorage.getItem(k).includes('browser-test'))") == []
    # The API itself still refuses a keyless caller.
    assert Api(keyed_server.base).call("GET", "/conflicts").status == 401


def test_a_reader_key_reads_the_queue_without_decision_buttons(make_page, keyed_server):
    # Arrange: a reader key and a conflict.
    page = make_page(keyed_server.base).page
    admin = Api(keyed_server.base, key=API_KEY)
    label = f"r{uuid.uuid4().hex[:8]}"
    reader = admin.post("/keys", {"name": f"reader-{label}", "role": "reader", "scopes": ["*"]})["key"]
    admin.conflict(label, "The timeout is 5 s", "The timeout is 9 s", title=f"Read {label}")

    # Act: sign in with it and open the conflict.
    page.goto(f"{keyed_server.base}/review?label={label}")
    page.get_by_label("Key", exact=True).fill(reader)
    page.keyboard.press("Enter")
    open_item(page, f"Read {label}")

    # Assert: the console names the key and its role, and offers no decision.
    expect(page.locator("#signed-in")).to_have_text(f"Key reader-{label}: reader of *")
    expect(page.locator("#read-only")).to_contain_text("may read the queue but not resolve")
    expect(page.get_by_role("button", name=re.compile("New is current"))).to_have_count(0)
    page.keyboard.press("1")
    page.wait_for_timeout(300)
    assert admin.get(f"/conflicts?label={label}")["items"][0]["status"] == "pending"


def test_help_lists_the_keys(page, server, label):
    goto_queue(page, server.base, label)
    page.keyboard.press("?")
    expect(page.locator("#help-dialog")).to_be_visible()
    expect(page.locator("#help-dialog")).to_contain_text("undo your last resolution")
    page.keyboard.press("Escape")
    expect(page.locator("#help-dialog")).to_be_hidden()


SHOTS = os.environ.get("SCREENSHOT_DIR")


@pytest.fixture
def demo_server(tmp_path_factory):
    """A server of its own holding only the example content, the same every run (one per
    picture set: they decide a conflict), so the pictures change only when the page does."""
    s = Server(f"sqlite://{tmp_path_factory.mktemp('shots')}/demo.db")
    seed_demo(Api(s.base), "demo")
    yield s
    s.stop()


@pytest.mark.skipif(not SHOTS, reason="SCREENSHOT_DIR not set")
@pytest.mark.parametrize("width,height,name", [(1280, 900, "desktop"), (390, 844, "phone")])
def test_screenshots_of_the_queue_a_conflict_and_a_decision(make_page, demo_server, width, height, name):
    # Arrange
    page = make_page(base=demo_server.base, width=width, height=height).page
    out = Path(SHOTS)

    # Act + Assert: both views render at this width, with nothing wider than the screen.
    page.goto(f"{demo_server.base}/review")
    expect(page.locator("#live")).to_have_text("Live updates on")
    expect(page.locator("#queue-list li")).to_have_count(3)
    expect(page.locator("#counts")).to_have_text("3 pending · 0 resolved, oldest queued just now")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(out / f"review-queue-{name}.png"), full_page=True)
    open_item(page, "Cache TTL")
    expect(page.locator(".side.new ins").first).to_have_text("60")
    page.locator("#conflict-title").evaluate("e => e.blur()")
    # The whole page at once, so that the sticky decision bar rests in its own place.
    full = page.evaluate("document.documentElement.scrollHeight")
    page.set_viewport_size({"width": width, "height": full})
    page.screenshot(path=str(out / f"review-conflict-{name}.png"))
    page.set_viewport_size({"width": width, "height": height})
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # A decision: its report names the memories in words, and the next conflict opens.
    page.keyboard.press("1")
    expect(page.locator("#report")).to_contain_text('Resolved "Cache TTL" as "new is current"')
    expect(page.locator("#report")).to_contain_text('The old memory "Cache TTL"')
    expect(page.locator("#conflict-title")).to_have_text("Deploy region")
    assert not UUID.search(page.locator("#report").inner_text())
    page.locator("#conflict-title").evaluate("e => e.blur()")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(out / f"review-decision-{name}.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def seed_demo(api, label):
    def pair(title, old, new, old_src, new_src, old_at, new_at, labels):
        api.node(title, old, [label, *labels], source=old_src, observed_at=old_at, confidence=0.7)
        r = api.node(title, new, [label, *labels], source=new_src, observed_at=new_at, confidence=0.9)
        assert r.get("conflicts"), title

    pair("Cache TTL",
         "The catalogue cache sits in front of the pricing service. The cache TTL is 30 seconds, "
         "set when prices changed hourly.",
         "The catalogue cache sits in front of the pricing service. The cache TTL is 60 seconds, "
         "after the move to nightly price updates.",
         "file:docs/cache.md", "agent:ops-review", "2026-03-02T09:15:00.000Z",
         "2026-06-01T14:00:00.000Z", ["cache"])
    pair("Deploy region",
         "Production deploys go to the region us-east-1.",
         "Production deploys go to the region eu-west-1 instead of us-east-1.",
         "wiki:runbook", "chat:platform-team", "2026-01-10T08:00:00.000Z",
         "2026-05-20T16:30:00.000Z", ["deploy"])
    pair("Streaming uploads",
         "The upload service supports streaming uploads.",
         "The upload service does not support streaming uploads.",
         "file:README.md", "agent:support", "2026-02-14T11:00:00.000Z",
         "2026-04-03T10:45:00.000Z", ["uploads"])


def test_bidirectional_controls_in_stored_text_show_as_markers(page, server, api, label):
    # Arrange: a title and a body whose right-to-left override would reorder what is shown.
    override = "\u202e"
    title = f"invoice{override}txt.exe {label}"
    api.conflict(label, f"Pay invoice{override}txt.exe by Monday", f"Pay invoice{override}txt.exe by Friday",
                 title=title)
    shown = title.replace(override, "⟦U+202E⟧")

    # Act
    goto_queue(page, server.base, label)
    open_item(page, shown)

    # Assert: the marker is shown, the control character is not obeyed anywhere on the page.
    expect(page.locator(".side.old .body")).to_contain_text("invoice⟦U+202E⟧txt.exe")
    assert override not in page.locator("body").inner_text()
    # The stored text is unchanged.
    stored = api.get(f"/nodes?label={label}")["items"][0]
    assert override in stored["title"]


# ---- issue 40: the console in words, at both widths ---------------------------------------------

WIDTHS = pytest.mark.parametrize("width,height", [(1280, 900), (390, 844)], ids=["desktop", "phone"])


def sized(make_page, width, height):
    return make_page(width=width, height=height)


@WIDTHS
def test_reports_and_history_name_the_memories_in_words(make_page, server, api, label, width, height):
    # Arrange
    title = f"Words {label}"
    c = api.conflict(label, "The cache TTL is 30 seconds for the catalogue.",
                     "The cache TTL is 60 seconds for the catalogue.", title=title)
    page = sized(make_page, width, height).page
    goto_queue(page, server.base, label)
    open_item(page, title)

    # Act
    page.keyboard.press("1")

    # Assert: the report says which memory changed, by title and a short quote, no ids.
    report = page.locator("#report")
    expect(report).to_contain_text(f'The old memory "{title}" (“The cache TTL is 30 seconds')
    expect(report).to_contain_text("is now dormant (was active)")
    decided = api.get(f"/conflicts/{c['id']}")
    expect_actions_in_words(report, [a["summary"] for a in decided["actions"]])

    # The history of the resolved conflict speaks the same way.
    page.goto(f"{server.base}/review?status=all&label={label}#{c['id']}")
    history = page.locator("#history-body ol.events")
    expect(history).to_contain_text(
        f'The new memory "{title}" (“The cache TTL is 60 seconds for the catalogue.”) now supersedes the old memory')
    expect_actions_in_words(history, [a["summary"] for a in decided["actions"]])
    expect_actions_in_words(page.locator(".resolved"), [a["summary"] for a in decided["actions"]])


@WIDTHS
def test_any_resolved_conflict_reverts_from_the_console_filtered_by_resolver(
        make_page, server, api, label, width, height):
    # Arrange: resolved elsewhere, by a person and by an MCP client.
    by_ada = api.conflict(label, "The pool has 4 workers", "The pool has 8 workers", title=f"Ada {label}")
    by_mcp = api.conflict(label, "The pool has 5 threads", "The pool has 9 threads", title=f"Mcp {label}")
    api.post(f"/conflicts/{by_ada['id']}/resolve", {"resolution": "keep_both", "resolved_by": "Ada"})
    api.post(f"/conflicts/{by_mcp['id']}/resolve",
             {"resolution": "new_is_current", "resolved_by": "mcp:claude-desktop"})
    page = sized(make_page, width, height).page
    goto_queue(page, server.base, label)
    expect(page.locator("#queue-list li")).to_have_count(0)

    # Act: everything an MCP client resolved.
    page.get_by_label("Resolved by", exact=True).fill("mcp:*")
    page.get_by_role("button", name="Apply").click()

    # Assert: only that one, and the address keeps the filter.
    items = page.locator("#queue-list li")
    expect(items.locator(".item-title")).to_have_text([f"Mcp {label}"])
    expect(page.get_by_label("Status", exact=True)).to_have_value("resolved")
    assert "by=mcp%3A*" in page.url or "by=mcp:*" in page.url, page.url
    page.get_by_label("Resolved by", exact=True).fill("Ada")
    page.get_by_role("button", name="Apply").click()
    expect(items.locator(".item-title")).to_have_text([f"Ada {label}"])
    page.get_by_label("Resolved by", exact=True).fill("mcp:*")
    page.get_by_role("button", name="Apply").click()
    expect(items.locator(".item-title")).to_have_text([f"Mcp {label}"])

    # Act: undo that resolution, which this tab did not make.
    open_item(page, f"Mcp {label}")
    expect(page.locator(".resolved")).to_contain_text("by mcp:claude-desktop")
    page.get_by_role("button", name="Undo this resolution").click()

    # Assert
    expect(page.locator("#report")).to_contain_text(f'Undid "new is current" on "Mcp {label}"; it is pending again')
    expect(page.locator("#report")).to_contain_text(f'The old memory "Mcp {label}"')
    assert not UUID.search(page.locator("#report").inner_text())
    got = api.get(f"/conflicts/{by_mcp['id']}")
    assert got["status"] == "pending"
    assert api.get(f"/nodes/{by_mcp['old_node']['id']}")["state"] == "active"
    assert api.get(f"/conflicts/{by_ada['id']}")["status"] == "resolved"
    expect(page.get_by_role("button", name="1 New is current")).to_be_enabled()


@WIDTHS
def test_the_queue_summary_counts_a_conflict_that_arrives_live(make_page, server, api, label, width, height):
    # Arrange
    for n in range(2):
        api.conflict(label, f"The disk quota is {n + 1} GB", f"The disk quota is {n + 10} GB", title=f"Q{n} {label}")
    page = sized(make_page, width, height).page
    goto_queue(page, server.base, label)
    summary = page.locator("#queue-summary")
    expect(summary).to_have_text("2 pending conflicts shown · 2 pending match the filters")

    # Act
    api.conflict(label, "The disk quota is 3 GB", "The disk quota is 30 GB", title=f"Q2 {label}")

    # Assert
    expect(item(page, f"Q2 {label}")).to_be_visible()
    expect(summary).to_have_text("3 pending conflicts shown · 3 pending match the filters")

    # Resolved elsewhere: both numbers go down together.
    first = api.get(f"/conflicts?label={label}&limit=1")["items"][0]
    api.post(f"/conflicts/{first['id']}/resolve", {"resolution": "keep_both", "resolved_by": "Lin"})
    expect(summary).to_have_text("2 pending conflicts shown · 2 pending match the filters")


@WIDTHS
def test_code_spans_in_reasons_and_notes_show_as_code(make_page, server, api, label, width, height):
    # Arrange: a `security` label makes the recommendation's reasoning quote it in backticks.
    title = f"Code {label}"
    scope = f"s{uuid.uuid4().hex[:12]}"
    api.node(title, "Tokens expire after 15 minutes", [label, "security"], scope=scope)
    hit = api.node(title, "Tokens expire after 60 minutes", [label, "security"], scope=scope)["conflicts"][0]
    c = api.get(f"/conflicts/{hit['conflict_id']}")
    assert "`security`" in c["recommendation"]["reasoning"]
    page = sized(make_page, width, height).page
    goto_queue(page, server.base, label)
    open_item(page, title)

    # Act + Assert: a code element, no backticks.
    rec = page.locator(".recommendation")
    expect(rec.locator("code")).to_have_text(["security"])
    assert "`" not in rec.inner_text()

    # A resolution note with code and markup: code shown as code, markup as text.
    note = "ran `kubectl get <b>pods</b>` to check"
    api.post(f"/conflicts/{c['id']}/resolve", {"resolution": "keep_both", "resolved_by": "Ada", "note": note})
    page.goto(f"{server.base}/review?status=all&label={label}#{c['id']}")
    resolved = page.locator(".resolved")
    expect(resolved.locator("code")).to_have_text(["kubectl get <b>pods</b>"])
    expect(resolved).to_contain_text("Note: ran kubectl get <b>pods</b> to check")
    expect(page.locator("#history-body code")).to_have_text(["kubectl get <b>pods</b>"])
    expect(page.locator("#conflict b")).to_have_count(0)


@WIDTHS
def test_labels_on_one_side_only_are_marked(make_page, server, api, label, width, height):
    # Arrange
    title = f"Labels {label}"
    scope = f"s{uuid.uuid4().hex[:12]}"
    api.node(title, "The retry limit is 3", [label, "jobs", "legacy"], scope=scope)
    api.node(title, "The retry limit is 7", [label, "jobs", "perf"], scope=scope)
    page = sized(make_page, width, height).page
    goto_queue(page, server.base, label)

    # Act
    open_item(page, title)

    # Assert: what one side lacks is marked like a changed word; shared labels are not.
    old_facts = page.locator(".side.old .facts")
    new_facts = page.locator(".side.new .facts")
    expect(old_facts.locator("del")).to_have_text(["legacy"])
    expect(new_facts.locator("ins")).to_have_text(["perf"])
    expect(old_facts).to_contain_text(f"{label}, jobs, legacy")
    expect(old_facts.locator("del")).to_have_attribute("title", "only on the old side")


@WIDTHS
def test_the_decision_bar_is_on_the_first_screen_of_a_long_conflict(make_page, server, api, label, width, height):
    # Arrange: long bodies push the decision far below the sides.
    title = f"Sticky {label}"
    api.conflict(label, f"{LONG_INTRO}\n\nThe cache TTL is 30 seconds.", f"{LONG_INTRO}\n\nThe cache TTL is 60 seconds.",
                 title=title)
    page = sized(make_page, width, height).page
    goto_queue(page, server.base, label)

    # Act
    open_item(page, title)

    # Assert: every decision button is on screen and not covered, with nothing scrolled.
    def on_screen(name):
        button = page.get_by_role("button", name=name)
        box = button.bounding_box()
        assert box and 0 <= box["y"] and box["y"] + box["height"] <= height, (name, box)
        hit = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y)?.closest('button')?.textContent",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
        assert hit and name.split(" ", 1)[1] in hit, (name, hit)
    for name in ["1 New is current", "2 Old is current", "3 Keep both", "4 Merge…"]:
        on_screen(name)
    # The header takes little of a phone's screen.
    header = page.locator("header.top").bounding_box()
    assert header["height"] <= (90 if width < 600 else 120), header
    # Halfway down the sides, still there.
    page.mouse.wheel(0, height)
    page.wait_for_timeout(200)
    on_screen("3 Keep both")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@WIDTHS
def test_the_queue_lists_short_bodies_and_an_opened_conflict_is_whole(make_page, server, api, label, width, height):
    # Arrange: bodies far longer than the queue needs.
    title = f"Big {label}"
    big_old = f"{LONG_INTRO}\n\nThe cache TTL is 30 seconds."
    big_new = f"{LONG_INTRO}\n\nThe cache TTL is 60 seconds."
    c = api.conflict(label, big_old, big_new, title=title)
    rec = sized(make_page, width, height)
    page = rec.page

    # Act
    goto_queue(page, server.base, label)
    expect(item(page, title)).to_be_visible()
    open_item(page, title)

    # Assert: the listing asked for shortened bodies, the opened conflict was fetched whole.
    lists = [u for u in rec.requests if urlsplit(u).path == "/conflicts"]
    assert lists and all("max_chars=" in u for u in lists), lists
    assert any(urlsplit(u).path == f"/conflicts/{c['id']}" for u in rec.requests), rec.requests
    assert page.locator(".side.old .body").inner_text() == big_old
    assert page.locator(".side.new .body").inner_text() == big_new
    expect(page.locator(".side.new ins")).to_have_text(["60"])


@WIDTHS
def test_the_favicon_is_served_and_allowed_by_the_csp(make_page, server, width, height, label):
    # Arrange
    page = sized(make_page, width, height).page

    # Act
    goto_queue(page, server.base, label)
    reply = page.request.get(f"{server.base}/favicon.ico")

    # Assert: an SVG icon, linked from the page, that the page's own policy lets it show.
    assert reply.status == 200
    assert reply.headers["content-type"] == "image/svg+xml"
    assert reply.text().startswith("<svg")
    expect(page.locator("link[rel=icon]")).to_have_attribute("href", "/favicon.ico")
    loaded = page.evaluate("""() => new Promise((ok) => {
        const img = new Image();
        img.onload = () => ok(img.naturalWidth > 0);
        img.onerror = () => ok(false);
        img.src = '/favicon.ico';
    })""")
    assert loaded is True


@WIDTHS
def test_the_detector_s_quotes_are_highlighted_in_chinese(make_page, server, api, label, width, height):
    # Arrange: Chinese has no spaces between words, so a quote sits between other characters.
    place = api.conflict(label, "生产环境部署在东京区域。", "生产环境部署在大阪区域。", title=f"部署 {label}")
    ttl = api.conflict(label, "缓存时间是30秒。", "缓存时间是60秒。", title=f"缓存 {label}")
    assert '"东京"' in place["detection"]["explanation"], place["detection"]
    assert '"30秒"' in ttl["detection"]["explanation"], ttl["detection"]
    page = sized(make_page, width, height).page
    goto_queue(page, server.base, label)

    for title, old, new in [(f"部署 {label}", "东京", "大阪"), (f"缓存 {label}", "30秒", "60秒")]:
        # Act
        open_item(page, title)

        # Assert: the quoted words are marked on each side.
        for side, quote in [("old", old), ("new", new)]:
            marks = page.locator(f".side.{side} .evidence")
            expect(marks.first).to_be_visible()
            assert "".join(marks.all_inner_texts()) == quote, (side, marks.all_inner_texts())
        if width < 600:
            page.get_by_role("button", name="← Queue").click()

    # A quote in a script with spaces still needs whole words ("3" does not mark "300").
    assert page.evaluate("ConcordDiff.ranges('pool of 300 and 3', ['3'])") == [[16, 17]]
    assert page.evaluate("ConcordDiff.ranges('上限是3个', ['3个'])") == [[3, 5]]


# ---- issue 35: versions, the timeline and the reason of a decision, at both widths ---------------


def resolved_pair(api, label, title, reason=None):
    """A conflict resolved through the API as "new is current" by ops-lead."""
    c = api.conflict(label, "The deploy region is us-east-1 for production.",
                     "The deploy region is eu-west-1 for production.", title=title,
                     observed_at="2026-03-01T09:00:00.000Z")
    body = {"resolution": "new_is_current", "resolved_by": "ops-lead"}
    if reason:
        body["reason"] = reason
    api.post(f"/conflicts/{c['id']}/resolve", body)
    return c


@WIDTHS
def test_each_side_lists_its_versions_in_words_loaded_when_the_conflict_opens(
        make_page, server, api, label, width, height):
    # Arrange: a resolved conflict (the old side has a second version, by its resolution) and a
    # pending one.
    title = f"Versions {label}"
    c = resolved_pair(api, label, title, reason="update")
    versions = api.get(f"/nodes/{c['old_node']['id']}/versions")["items"]
    assert [v["kind"] for v in versions] == ["created", "changed"]
    rec = sized(make_page, width, height)
    page = rec.page
    goto_queue(page, server.base, label, "&status=all")
    assert not [u for u in rec.requests if "/versions" in u], "versions asked before a conflict opened"

    # Act
    open_item(page, title)

    # Assert: one request per side, collapsed lists with their counts.
    old_box = page.locator(".side.old details.versions")
    new_box = page.locator(".side.new details.versions")
    expect(old_box.locator("summary")).to_have_text("Versions (2)")
    expect(new_box.locator("summary")).to_have_text("Versions (1)")
    asked = [urlsplit(u).path for u in rec.requests if "/versions" in u]
    assert sorted(asked) == sorted([f"/nodes/{c['old_node']['id']}/versions",
                                    f"/nodes/{c['new_node']['id']}/versions"]), asked
    expect(old_box.locator("li.version").first).to_be_hidden()
    old_box.locator("summary").click()
    lines = old_box.locator("li.version")
    expect(lines).to_have_count(2)
    expect(lines.nth(0)).to_contain_text("v1 · ")
    expect(lines.nth(0)).to_contain_text(" · created · active")
    second = lines.nth(1)
    expect(second).to_contain_text("v2 · ")
    expect(second).to_contain_text("changed by ops-lead in this conflict")
    expect(second).to_contain_text("now dormant (was active)")
    expect(second).to_contain_text("ended: held until ")
    # Ids are on hover only.
    hover = second.get_attribute("title")
    assert c["old_node"]["id"] in hover and c["id"] in hover, hover
    assert not UUID.search(old_box.inner_text())
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@WIDTHS
def test_a_side_without_a_node_shows_no_versions_and_a_correction_says_never_held(
        make_page, server, api, label, width, height):
    # Arrange: a correction; later its new memory is deleted.
    title = f"Corrected {label}"
    c = resolved_pair(api, label, title, reason="correction")
    page = sized(make_page, width, height).page
    goto_queue(page, server.base, label, "&status=all")

    # Act
    open_item(page, title)
    page.locator(".side.old details.versions summary").click()

    # Assert
    expect(page.locator(".side.old li.version").nth(1)).to_contain_text("corrected: never held")
    expect(page.locator(".side.old li.version").nth(1)).not_to_contain_text("ended:")
    # A side with no node (its memory deleted since) shows no versions.
    api.ok("DELETE", f"/nodes/{c['new_node']['id']}")
    page.reload()
    expect(page.locator("#conflict-title")).to_have_text(title)
    expect(page.locator(".side.new details.versions")).to_have_count(0)
    expect(page.locator(".side.old details.versions summary")).to_have_text("Versions (2)")


@WIDTHS
def test_a_resolved_conflict_shows_its_timeline_with_its_own_memories_highlighted(
        make_page, server, api, label, width, height):
    # Arrange
    title = f"Timeline {label}"
    c = resolved_pair(api, label, title, reason="update")
    pending = api.conflict(label, "The pool size is 4 workers", "The pool size is 9 workers",
                           title=f"Pending {label}")
    t = api.get(f"/nodes/{c['old_node']['id']}/timeline")
    assert len(t["entries"]) == 2
    page = sized(make_page, width, height).page
    goto_queue(page, server.base, label, "&status=all")

    # Act
    open_item(page, title)

    # Assert: the summary sentence, then the entries oldest first, with intervals and deciders.
    box = page.locator("section.timeline")
    expect(box.locator(".timeline-summary")).to_have_text(t["summary"])
    entries = box.locator("li.entry")
    expect(entries).to_have_count(2)
    expect(entries.nth(0)).to_contain_text("2026-03-01 → ")
    expect(entries.nth(0)).to_contain_text("this conflict's old memory")
    expect(entries.nth(0)).to_contain_text(f'replaced by "{title}" as decided by ops-lead')
    expect(entries.nth(0)).to_contain_text("in this conflict")
    expect(entries.nth(1)).to_contain_text("→ now")
    expect(entries.nth(1)).to_contain_text("this conflict's new memory")
    expect(box.locator("li.this-conflict")).to_have_count(2)
    assert c["old_node"]["id"] in entries.nth(0).get_attribute("title")
    assert not UUID.search(box.inner_text())
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # A pending conflict has no timeline.
    page.goto(f"{server.base}/review?status=all&label={label}#{pending['id']}")
    expect(page.locator("#conflict-title")).to_have_text(pending["old_node"]["title"])
    expect(page.locator(".side.old details.versions summary")).to_have_text("Versions (1)")
    expect(page.locator("section.timeline")).to_have_count(0)


@WIDTHS
def test_a_correction_shows_never_held_in_the_timeline(make_page, server, api, label, width, height):
    # Arrange
    title = f"Never {label}"
    resolved_pair(api, label, title, reason="correction")
    page = sized(make_page, width, height).page
    goto_queue(page, server.base, label, "&status=all")

    # Act
    open_item(page, title)

    # Assert
    entries = page.locator("section.timeline li.entry")
    expect(entries).to_have_count(2)
    expect(entries.nth(0)).to_contain_text("never held")
    expect(entries.nth(0)).not_to_contain_text("→")


@WIDTHS
def test_the_reason_chosen_goes_with_the_decision_and_the_report_names_it(
        make_page, server, api, label, width, height):
    # Arrange
    a = api.conflict(label, "The cache TTL is 30 seconds", "The cache TTL is 60 seconds", title=f"A {label}")
    b = api.conflict(label, "The batch size is 10 rows", "The batch size is 50 rows", title=f"B {label}")
    rec = sized(make_page, width, height)
    page = rec.page
    goto_queue(page, server.base, label)
    open_item(page, f"A {label}")

    # Act 1: a correction chosen by the reviewer.
    page.get_by_label("Reason").select_option("correction")
    page.locator("#conflict-title").focus()
    page.keyboard.press("1")

    # Assert 1
    expect(page.locator("#report")).to_contain_text('as "new is current" (reason: correction, as you chose)')
    assert api.get(f"/nodes/{a['old_node']['id']}")["corrected"] is True

    # Act 2: the default lets concord choose.
    expect(page.locator("#conflict-title")).to_have_text(f"B {label}")
    expect(page.get_by_label("Reason")).to_have_value("")
    page.keyboard.press("1")

    # Assert 2
    report = page.locator("#report")
    expect(report).to_contain_text('as "new is current" (reason: ')
    expect(report).to_contain_text("chosen by concord")
    old = api.get(f"/nodes/{b['old_node']['id']}")
    applied = "correction" if old["corrected"] else "update"
    expect(report).to_contain_text(f"(reason: {applied}, chosen by concord)")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_a_banner_shows_a_running_sweep_and_goes_when_it_ends(page, server, api, label):
    # Arrange: 3,000 memories stored without detection, one pair of them contradicting.
    scope = f"sweep-{label}"
    nodes = [{"title": f"Widget {i} {label}", "body": f"Widget {i} of the {label} line weighs {i} grams",
              "labels": [label], "scope": scope} for i in range(2998)]
    nodes += [{"title": f"Quota {label}", "body": body, "labels": [label], "scope": scope}
              for body in ("The disk quota is 1 GB", "The disk quota is 10 GB")]
    for at in range(0, len(nodes), 500):
        api.post("/nodes/batch?detect=false", {"nodes": nodes[at:at + 500]})
    goto_queue(page, server.base, label)
    banner = page.locator("#sweep")
    expect(banner).to_be_hidden()

    # Act
    started = api.post("/sweeps", {"scope": scope})

    # Assert: the banner follows it while it runs, and the conflict it found arrives.
    expect(banner).to_be_visible()
    expect(page.locator("#sweep-text")).to_contain_text(re.compile(r"of 3,000 memories compared"))
    expect(banner).to_be_hidden(timeout=120_000)
    assert api.get(f"/sweeps/{started['id']}")["status"] == "done"
    expect(item(page, f"Quota {label}")).to_be_visible()


# ---- the quarantine queue: claims a policy holds back, promoted or rejected ----------------------


def quarantined_claim(api, label):
    """The README's "Trust and quarantine" example on the policy server: a signed prescription,
    then an anonymous rumour contradicting it, which the policy stores quarantined. The test's
    own scope and sources keep other tests' memories and verdicts out of it."""
    scope = f"s{uuid.uuid4().hex[:12]}"
    title = f"Dose {label}"
    fact = api.node(title, "Per the signed prescription, the dose is 5 mg daily.", [label],
                    source=f"signed:dr-lee-{label}", observed_at="2026-01-01T00:00:00Z", scope=scope)["node"]
    written = api.node(title, "Unverified message: the dose is 50 mg daily.", [label],
                       source=f"anonymous visitor {label}", observed_at="2026-02-01T00:00:00Z", scope=scope)
    rumour = written["node"]
    assert rumour["state"] == "quarantined", rumour
    c = api.get(f"/conflicts/{written['conflicts'][0]['conflict_id']}")
    assert c["status"] == "pending", c
    assert c["detection"]["policy"] == {"name": "weak-claim-waits", "action": "quarantine", "dry_run": False}
    assert c["note"].startswith("policy weak-claim-waits quarantined the new memory"), c["note"]
    return title, fact, rumour, c


def test_a_quarantined_claim_is_marked_in_its_own_queue_and_1_promotes_it(
        make_page, policy_server, policy_api, label):
    # Arrange: the quarantined rumour, and an ordinary pending conflict beside it (a value-layer
    # label keeps every policy off it).
    api = policy_api
    title, fact, rumour, c = quarantined_claim(api, label)
    scope = f"s{uuid.uuid4().hex[:12]}"
    api.node(f"Pool {label}", "The pool size is 4 workers", [label, "security"], scope=scope)
    hit = api.node(f"Pool {label}", "The pool size is 9 workers", [label, "security"], scope=scope)["conflicts"][0]
    other = api.get(f"/conflicts/{hit['conflict_id']}")
    assert other["status"] == "pending" and other["new_node"]["state"] == "active", other
    rec = make_page(policy_server.base)
    page = rec.page
    goto_queue(page, policy_server.base, label)

    # Assert: the queue marks the quarantined one, and only it.
    items = page.locator("#queue-list li")
    expect(items).to_have_count(2)
    expect(item(page, title).locator(".badge.quarantined")).to_have_text("Quarantined")
    expect(item(page, f"Pool {label}").locator(".badge")).to_have_count(0)

    # Act: the quarantine queue, by its key.
    page.keyboard.press("q")

    # Assert: read from the quarantined memories, kept in the address.
    expect(page.get_by_label("Quarantined only")).to_be_checked()
    expect(items.locator(".item-title")).to_have_text([title])
    expect(page.locator("#queue-summary")).to_have_text("1 quarantined conflict shown")
    assert "quarantined=1" in page.url, page.url
    assert any(urlsplit(u).path == "/nodes" and "state=quarantined" in u for u in rec.requests), rec.requests

    # Act: open it.
    open_item(page, title)

    # Assert: the new side is marked, the rule and its reason are shown, and the decision
    # offers Promote and Reject on the keys of new / old is current.
    expect(page.locator(".side.new h3 .badge.quarantined")).to_have_text("Quarantined")
    expect(page.locator(".side.old .badge")).to_have_count(0)
    expect(page.locator(".side.new .facts")).to_contain_text("quarantined")
    held = page.locator("section.quarantine")
    expect(held.locator("h3")).to_have_text("Quarantined by policy weak-claim-waits")
    expect(held.locator(".quarantine-reason")).to_have_text(f"Reason: {c['note']}")
    expect(page.get_by_role("button", name="1 Promote")).to_be_enabled()
    expect(page.get_by_role("button", name="2 Reject")).to_be_enabled()
    expect(page.get_by_role("button", name="1 New is current")).to_have_count(0)
    expect(page.get_by_role("button", name="2 Old is current")).to_have_count(0)

    # Act: promote.
    page.keyboard.press("1")

    # Assert: the rumour is current now, the signed fact dormant, and the queue is empty.
    report = page.locator("#report")
    expect(report).to_contain_text(f'Promoted the quarantined memory of "{title}": resolved as "new is current"')
    expect(report).to_contain_text(f'The new memory "{title}"')
    expect(report).to_contain_text("is now active (was quarantined)")
    decided = api.get(f"/conflicts/{c['id']}")
    assert (decided["status"], decided["resolution"], decided["resolved_by"]) == \
        ("resolved", "new_is_current", "Test Reviewer")
    assert api.get(f"/nodes/{rumour['id']}")["state"] == "active"
    assert api.get(f"/nodes/{fact['id']}")["state"] == "dormant"
    expect_actions_in_words(report, [a["summary"] for a in decided["actions"]])
    expect(items).to_have_count(0)
    expect(page.locator("#queue-summary")).to_have_text("No quarantined conflicts match.")
    expect(page.locator("#empty")).to_contain_text("The queue is empty")

    # The same key leaves the quarantine queue: the ordinary conflict is there again.
    page.keyboard.press("q")
    expect(page.get_by_label("Quarantined only")).not_to_be_checked()
    expect(items.locator(".item-title")).to_have_text([f"Pool {label}"])
    assert "quarantined" not in page.url, page.url
    # The keys list names both.
    page.keyboard.press("?")
    keys = page.locator("#help-dialog")
    expect(keys).to_contain_text("on a quarantined new memory: Promote it")
    expect(keys).to_contain_text("on a quarantined new memory: Reject it")
    expect(keys).to_contain_text("show only the quarantine queue")


@WIDTHS
def test_reject_leaves_a_quarantined_claim_dormant_and_the_old_fact_current(
        make_page, policy_server, policy_api, label, width, height):
    # Arrange: the quarantine queue straight from its address.
    api = policy_api
    title, fact, rumour, c = quarantined_claim(api, label)
    page = make_page(base=policy_server.base, width=width, height=height).page
    goto_queue(page, policy_server.base, label, "&quarantined=1")
    expect(page.get_by_label("Quarantined only")).to_be_checked()
    expect(page.locator("#queue-list li .item-title")).to_have_text([title])
    open_item(page, title)
    expect(page.locator("section.quarantine .quarantine-reason")).to_contain_text(c["note"])
    assert page.evaluate("document.documentElement.scrollWidth") <= width

    # Act
    page.get_by_role("button", name="2 Reject").click()

    # Assert: the rumour is dormant, the signed fact still current.
    expect(page.locator("#report")).to_contain_text(
        f'Rejected the quarantined memory of "{title}": resolved as "old is current"')
    expect(page.locator("#report")).to_contain_text("is now dormant (was quarantined)")
    decided = api.get(f"/conflicts/{c['id']}")
    assert (decided["status"], decided["resolution"]) == ("resolved", "old_is_current")
    assert api.get(f"/nodes/{rumour['id']}")["state"] == "dormant"
    assert api.get(f"/nodes/{fact['id']}")["state"] == "active"
    assert rumour["id"] not in [n["id"] for n in api.get(f"/nodes?state=quarantined&label={label}")["items"]]
    expect(page.locator("#queue-list li")).to_have_count(0)

    # Another status leaves the quarantine queue; the resolved conflict is listed unmarked.
    page.get_by_label("Status", exact=True).select_option("resolved")
    expect(page.get_by_label("Quarantined only")).not_to_be_checked()
    expect(page.locator("#queue-list li .item-title")).to_have_text([title])
    expect(page.locator("#queue-list .badge")).to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
