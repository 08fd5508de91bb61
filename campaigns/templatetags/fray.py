from django import template

from campaigns.markdown import render

register = template.Library()


@register.filter
def join_if_list(value):
    """Lists (focuses, conditions) read as a comma-separated line; anything else as it is."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or "—"
    return value


@register.filter
def outcome_for(encounter, gm):
    """`{{ encounter|outcome_for:membership.is_gm }}`: how the fight went, as this viewer may know it."""
    return encounter.outcome_for(gm=bool(gm))


@register.filter(is_safe=True)
def markdown(text):
    """`{{ campaign.description|markdown }}`: Markdown rendered to sanitised HTML (campaigns.markdown)."""
    return render(str(text or ""))
