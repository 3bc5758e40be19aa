"""One adapter per social network, behind `base.NetworkAdapter`."""
