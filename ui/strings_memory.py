"""Strings of the memory lab page. {key: (en, zh)}; templates use str.format fields."""
STRINGS: dict[str, tuple[str, str]] = {
    "nav_memory": ("Memory lab", "显存实验室"),
}
