"""Takes the gallery's shots of a page after its run (scripts/shot_plan.py says which): each planned
language through the sidebar's language choice, each width by resizing the same page. The run is
never repeated: a page keeps its results in the session, so a language switch redraws them.
Also the one-line progress of every shot, and the palette that keeps a large PNG small.
"""

from __future__ import annotations

from pathlib import Path

from scripts.app_browser import click_and_wait, wait_idle
from scripts.shot_plan import DESKTOP, LANG_NAMES, LANGS, MAX_BYTES, TAB_SHOTS, Shot

ROOT = Path(__file__).resolve().parent.parent
MAIN_BLOCK = '[data-testid="stMainBlockContainer"]'
TAB_PANEL = '[data-testid="stTabPanel"]:visible'
SWITCH_MS = 600_000  # a language switch reruns the page: its figures are drawn again from the results


class ShotTaker:
    """The planned shots and how many have been written; `extras`: also the docs' other shots
    (each page's further tabs and runs), not only the gallery's."""

    def __init__(self, out: Path, shots: list[Shot], extras: bool = True):
        self.out = out
        self.shots = shots
        self.extras = extras
        self.done = 0

    def page(self, page, name: str) -> None:
        """Shoot page `name` as it stands after its run, in each planned language and width; the page
        is left in English at the desktop width, as the run left it, for the docs' other shots."""
        mine = [s for s in self.shots if s.page == name]
        height = page.viewport_size["height"]
        lang = "en"
        for shot in mine:
            if shot.lang != lang:
                lang = switch_language(page, shot.lang, height)
            self._take(page, shot, height)
        if lang != "en":
            switch_language(page, "en", height)
        page.set_viewport_size({"width": DESKTOP, "height": height})
        wait_idle(page, SWITCH_MS)

    def extra(self, path: Path) -> None:
        """One of the docs' other shots has been written: keep it small and say so."""
        shrink(path)
        print(f"[extra] {path.relative_to(ROOT)} ({path.stat().st_size // 1000} KB)", flush=True)

    def _wrote(self, path: Path, shot: Shot) -> None:
        """One line per gallery shot: its number, what it is, where it went and its size."""
        self.done += 1
        what = f"{shot.page} {shot.width} px {shot.lang}"
        print(
            f"[{self.done}/{len(self.shots)}] {what}: {path.relative_to(ROOT)} ({path.stat().st_size // 1000} KB)",
            flush=True,
        )

    def _take(self, page, shot: Shot, height: int) -> None:
        page.set_viewport_size({"width": shot.width, "height": height})
        target = show_target(page, shot.page)
        box = target.bounding_box()
        path = self.out / shot.file
        if not shot.max_height:
            target.screenshot(path=str(path))
        else:
            top = results_top(target, box)
            if top + shot.max_height > height:
                # headless Chromium paints nothing below the viewport: make room for the part kept
                page.set_viewport_size({"width": shot.width, "height": int(top) + shot.max_height + 100})
                target = show_target(page, shot.page)
                box = target.bounding_box()
                top = results_top(target, box)
            clip = {**box, "y": top, "height": min(box["y"] + box["height"] - top, shot.max_height)}
            page.screenshot(path=str(path), clip=clip)
        shrink(path)
        self._wrote(path, shot)


RESULTS = '[data-testid="stPlotlyChart"], [data-testid="stDataFrame"], [data-testid="stMetric"]'


def results_top(target, box: dict) -> float:
    """Where a tall narrow shot starts: the page's top, or just above its first result where the
    controls alone would fill the shot (a phone reads the controls, then scrolls to the answer)."""
    found = target.locator(RESULTS).first.bounding_box() if target.locator(RESULTS).count() else None
    if found is None:
        return box["y"]
    y = found["y"] - 60
    return y if y > box["y"] + 800 else box["y"]


def switch_language(page, lang: str, height: int) -> str:
    """Choose `lang` in the sidebar (in view at the desktop width) and wait for the page's rerun."""
    assert lang in LANGS, lang
    page.set_viewport_size({"width": DESKTOP, "height": height})
    page.wait_for_timeout(300)  # the sidebar opens again when the window widens
    choice = page.locator('[data-testid="stSidebar"]').get_by_text(LANG_NAMES[lang], exact=True)
    click_and_wait(page, choice, SWITCH_MS)
    return lang


def show_target(page, name: str):
    """The part of the page its shot holds, in view and settled: a tab's panel (chosen by its place,
    the label being in either language) or the whole main block."""
    tab = TAB_SHOTS.get(name)
    if tab is not None:
        page.locator('[data-testid="stTabs"]').first.get_by_role("tab").nth(tab).click()
    target = page.locator(TAB_PANEL).first if tab is not None else page.locator(MAIN_BLOCK)
    wait_idle(page, SWITCH_MS)
    charts = target.locator(".js-plotly-plot .main-svg >> visible=true")  # a hidden tab's wait for nothing
    if charts.count():
        charts.first.wait_for(timeout=20_000)
    page.mouse.move(1, 1)  # a hovered chart shows Plotly's toolbar
    page.wait_for_timeout(800)  # Plotly redraws a chart at the new width, with a transition
    return target


def shrink(path: Path) -> None:
    """Store a PNG above MAX_BYTES with a 256-colour palette (no dithering: text stays crisp)."""
    if path.stat().st_size <= MAX_BYTES:
        return
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    small.save(path, optimize=True)
