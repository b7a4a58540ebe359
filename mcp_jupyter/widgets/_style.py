"""The colours of forms, cards and the inbox: JupyterLab theme variables only.

Each name says what the colour is for, and each value is a ``--jp-*`` variable, so every widget
follows the light, dark and high-contrast themes. Text colours are paired with the backgrounds
they are read on (checked for WCAG AA contrast in light and dark by the browser tests).
"""

TEXT = "var(--jp-ui-font-color0)"  # headings on a card's header background
TEXT_SOFT = "var(--jp-ui-font-color1)"
MUTED = "var(--jp-content-font-color2)"  # help texts and labels of secondary facts
ERROR = "var(--jp-error-color1)"  # problems, required marks
ON_ERROR = "var(--jp-ui-inverse-font-color0)"  # text on an ERROR background
ATTENTION = "var(--jp-warn-color1)"  # the border of what needs a person's decision
HEADER_BACKGROUND = "var(--jp-layout-color2)"
RULE = "var(--jp-border-color2)"  # indentation rules of nested fields
