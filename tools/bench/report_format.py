"""Numbers as the bench's Markdown tables print them."""

MB = 1024.0 * 1024.0


def fmt(value, digits=3):
    if value is None or value != value:
        return "–"
    if abs(value) >= 100:
        return "{:,.0f}".format(value)
    if abs(value) >= 10:
        return "%.1f" % value
    return ("%." + str(digits) + "g") % value


def mb(value):
    return "%.0f MB" % (value / MB)


def verdict(ok):
    return "**holds**" if ok else "**missed**"
