"""Strings of the serving lab page. {key: (en, zh)}; templates use str.format fields."""
STRINGS: dict[str, tuple[str, str]] = {
    "nav_serving": ("Serving lab", "服务实验室"),
}
