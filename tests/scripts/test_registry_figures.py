"""scripts/registry_figures.py on a hand-made registry."""

import pandas as pd

from scripts.registry_figures import image_input, share


def test_image_input_counts_models_a_source_says_take_images_and_those_published_without():
    models = pd.DataFrame({
        "input_modalities_source": ["litellm: image, text", "models.dev: text", "litellm: text; models.dev: image, text",
                                    None],
        "input_modalities": [["image", "text"], ["text"], ["text"], ["text"]],
    })
    assert image_input(models) == (2, 1)


def test_share_gives_the_count_and_the_percentage():
    assert share(437, 460) == "437/460 (95.0%)" and share(0, 0) == "0/0"
