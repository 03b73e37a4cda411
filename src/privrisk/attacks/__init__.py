"""Attacks: membership, attribute and reconstruction attacks (threshold, discriminator queries, RAP)."""
