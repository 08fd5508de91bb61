from django import template

register = template.Library()


@register.filter
def join_if_list(value):
    """Lists (focuses, conditions) read as a comma-separated line; anything else as it is."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or "—"
    return value
