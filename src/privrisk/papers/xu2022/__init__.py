"""Xu et al., "Mace: a flexible framework for membership privacy estimation in generative models"
(TMLR 2022); spec ../shared/spec/xu2022.md. ``steps`` trains the models and saves their query
values; ``figures`` turns the saved queries into Figures 1a, 2a, 3, 5 and 6; ``registry`` declares
one training step per model and which models each figure reads."""
