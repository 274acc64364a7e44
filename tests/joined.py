"""What shows as one character but is written with several: the texts a cut to a platform's
limit must keep whole (never `👍` of `👍🏽`, `1` of `1️⃣`, `e` of `é` written with its accent)."""

JOINED = {
    "family": "👨\u200d👩\u200d👧",
    "flag": "🇩🇪",
    "flag of a region": "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
    "skin tone": "👍🏽",
    "keycap": "1\ufe0f\u20e3",
    "accent": "e\u0301",
    "hangul of jamo": "\u1112\u1161\u11ab",
}
"""Each written with two characters or more, by what joins them."""
