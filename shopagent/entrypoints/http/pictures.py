"""Pictures for the sample catalogs (the clothing shop's and the roastery's): small SVGs, one per
category and colour (the category's silhouette in the colour, on the category's tint, with its
name), served at `GET /sample-pictures/{category}[-{colour}].svg`, so the demo's product cards look
like a shop's without a picture host. `shopagent demo` points each sample product at its category
and first colour (a product without colours gets its category's picture in the category's ink).
"""

from __future__ import annotations

import re
from html import escape

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from shopagent.entrypoints.http.web import StaticFile

PICTURES_PATH = "/sample-pictures"

_SHOE = "M112 196q0-42 46-42l38 6q40 8 84 8q40 0 40 34v12H112z"
_BOOT = "M150 64h62v92q0 10 12 14l58 18q26 8 26 30v14H150z"
_SANDAL = "M104 200h196q10 0 10 10v8H94v-8q0-10 10-10zm44 0q10-56 52-56t52 56h-18q-8-36-34-36t-34 36z"
_DRESS_SHOE = "M106 196q0-30 44-30q70 0 110 14q50 14 50 30v12H106z"
_TOP = "M160 58 100 90l20 42 26-10v114h108V122l26 10 20-42-60-32q-40 26-80 0z"
_COAT = "M160 50 98 84l28 40 14-8v120h120V116l14 8 28-40-62-34-40 34zM198 84h4v152h-4z"
_KNIT = "M160 58 96 94l24 46 26-12v108h108V128l26 12 24-46-64-36q-40 20-80 0zm-4 150h88v10h-88z"
_TROUSERS = "M148 56h104l16 184h-48l-20-128-20 128h-48z"
_DRESS = "M176 56h48l10 52 48 132H118l48-132z"
_BEANIE = "M116 200q0-116 84-116t84 116zm-8 0h184v26H108zM200 60a16 16 0 1 1 0 32a16 16 0 1 1 0-32z"
# The roastery's (`--sample coffee`).
_BAG = "M140 74h120l14 162H126zm0 0 10-18h100l10 18zm60 46a10 10 0 1 0 0 20a10 10 0 1 0 0-20z"
_TIN = "M144 64h112v22H144zm6 22h100v150H150zm20 40h60v50h-60z"
_GRINDER = "M160 48h80l-12 46h-56zm-12 46h104v112H148zm48 22a14 14 0 1 0 0 28a14 14 0 1 0 0-28zm-30 90h68v32h-68z"
_KETTLE = (
    "M142 120h106q12 0 12 12v104H130V132q0-12 12-12zm44-22h18v22h-18zm-46 92q-40 0-44-70l-12-22 10-4 14 22q4 56 "
    "32 58zm120-48h16q16 0 16 16v40q0 16-16 16h-16v-14h12q6 0 6-6v-32q0-6-6-6h-12z"
)
_DRIPPER = "M120 66h160l-54 98h-52zm20 98h120v12H140zm20 12h80l-8 60h-64z"
_MACHINE = "M106 56h188v180H106zm30 74v86h128v-86zm44 0h40v16h-40zm40 6h44v8h-44zm-34 46h28v28h-28z"
_MUG = (
    "M126 98h122v122q0 16-16 16h-90q-16 0-16-16zm122 24h18q24 0 24 28v22q0 28-24 28h-18v-16h16q10 0 10-12v-22q0-12"
    "-10-12h-16z"
)
_FILTER = "M200 234 108 84q92-42 184 0zm-4-20 6 4 78-126-8-4z"
_SCALE = "M100 172h200v48q0 8-8 8H108q-8 0-8-8zm82 18v18h36v-18zm-32-102h76l-8 80h-60z"
_TAG = "M120 80h110l60 60-90 90-80-80zm30 20a14 14 0 1 0 0 28a14 14 0 1 0 0-28z"

# the sample's categories -> (silhouette, tint, ink); any other gets a price tag in grey, named "Product".
_LOOKS = {
    "Boots": (_BOOT, "#efe4d8", "#7a5534"),
    "Sneakers": (_SHOE, "#e2ecf6", "#2f5d8a"),
    "Sandals": (_SANDAL, "#f7ead2", "#9a6b1f"),
    "Dress shoes": (_DRESS_SHOE, "#e9e4ee", "#4b3b63"),
    "Jackets": (_COAT, "#dfeee6", "#2f6b4c"),
    "Coats": (_COAT, "#e6e2dc", "#5a4a3a"),
    "Shirts & tops": (_TOP, "#f3e3e6", "#8a3b4d"),
    "Knitwear": (_KNIT, "#efe6dc", "#7a4f2e"),
    "Trousers": (_TROUSERS, "#e1e6ee", "#37465e"),
    "Dresses & skirts": (_DRESS, "#f1e2ee", "#7b3468"),
    "Accessories": (_BEANIE, "#e4ecec", "#2f6262"),
    "Coffee": (_BAG, "#efe4d8", "#6b4427"),
    "Tea": (_TIN, "#e6eedc", "#4d6b2f"),
    "Grinders": (_GRINDER, "#e6e2dc", "#4a3b30"),
    "Kettles": (_KETTLE, "#e2ecf6", "#2f4f6b"),
    "Brewers": (_DRIPPER, "#f5ece0", "#8a5a2b"),
    "Espresso machines": (_MACHINE, "#e4e6ea", "#3a3f47"),
    "Cups & mugs": (_MUG, "#f3e6e0", "#8a4b3b"),
    "Filters": (_FILTER, "#f4f1e6", "#7a6a3a"),
    "Brewing accessories": (_SCALE, "#e4ecec", "#2f6262"),
}
_OTHER = (_TAG, "#eceef1", "#5b616b")
# The sample catalogs' colours, as a silhouette's fill.
_COLORS = {
    "black": "#262626", "white": "#fbfbfb", "grey": "#8c9096", "navy": "#1f2f57", "blue": "#3a6fc4",
    "red": "#c23b32", "burgundy": "#6e1f31", "pink": "#e59ab4", "green": "#3f8a4f", "olive": "#6b6b2e",
    "beige": "#dcc9a6", "brown": "#6b4427", "camel": "#c19a5b", "yellow": "#e8c33a", "orange": "#e07b2a",
    "purple": "#6d4a9b", "silver": "#c9ccd1", "copper": "#b8693d", "cream": "#efe6cf",
}  # fmt: skip


def picture_name(category: str, color: str | None = None) -> str:
    """The file name of a picture: `Shirts & tops`, `navy` -> `shirts-tops-navy`; `product` for other
    categories; no colour part for colours not listed."""
    name = _slug(category) if category in _LOOKS else "product"
    return f"{name}-{color}" if color in _COLORS else name


def picture_url(base_url: str, category: str, color: str | None = None) -> str:
    return f"{base_url.rstrip('/')}{PICTURES_PATH}/{picture_name(category, color)}.svg"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")


def _svg(category: str, color: str | None = None) -> bytes:
    path, tint, ink = _LOOKS.get(category, _OTHER)
    fill = f'fill="{_COLORS[color]}" stroke="{ink}" stroke-width="3"' if color else f'fill="{ink}" fill-opacity="0.85"'
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300" width="400" height="300">'
        f'<rect width="400" height="300" fill="{tint}"/>'
        f'<path d="{path}" {fill} fill-rule="evenodd" stroke-linejoin="round"/>'
        f'<text x="200" y="276" text-anchor="middle" font-family="system-ui, sans-serif" font-size="20" '
        f'fill="{ink}">{escape(category)}</text></svg>'
    ).encode()


def picture_routes() -> list[Route]:
    embeddable = {"Cross-Origin-Resource-Policy": "cross-origin"}  # cards on a shop's page on another origin
    files = {
        picture_name(category, color): StaticFile(_svg(category, color), "image/svg+xml", embeddable)
        for category in [*_LOOKS, "Product"]
        for color in [None, *_COLORS]
    }

    async def picture(request: Request) -> Response:
        file = files.get(request.path_params["name"])
        if file is None:
            return Response(status_code=404)
        return await file.respond(request)

    return [Route(PICTURES_PATH + "/{name}.svg", picture, methods=["GET", "HEAD"])]
