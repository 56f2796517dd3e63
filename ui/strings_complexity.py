"""Strings of the complexity lab page. {key: (en, zh)}; templates use str.format fields."""
STRINGS: dict[str, tuple[str, str]] = {
    "nav_complexity": ("Complexity lab", "复杂度实验室"),
}
