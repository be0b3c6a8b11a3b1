"""A corpus for char_gpt.py: short village tales generated from a small grammar (seeded, so every run
gets the same text), plus the hand-written tiny_tales.txt. About 60 KB: too much for the demo's small
model to memorise in two minutes, regular enough that it learns words, names and sentence shapes.

    python examples/tales.py | head -30        # read some
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

NAMES = ["Mara", "Tobin", "Elsa", "Pell", "Nico", "Wren", "Ada", "Bram", "Ilse", "Oren", "Sunny", "Hugo",
         "Lotte", "Finn", "Greta", "Anselm"]
TRADES = ["baker", "miller", "ferryman", "weaver", "lighthouse keeper", "shepherd", "blacksmith",
          "fisherwoman", "clockmaker", "schoolteacher", "beekeeper", "potter"]
PLACES = ["the harbour", "the mill", "the market square", "the old bridge", "the orchard", "the lighthouse",
          "the bakery", "the chapel on the hill", "the river bend", "the forest edge", "the village well"]
TIMES = ["At dawn", "Before the gulls woke", "In the afternoon", "When the bells rang noon", "At dusk",
         "Late that night", "On the first cold morning", "After the rain", "On market day", "In early spring"]
WEATHER = ["the fog lay thick on the water", "the wind came hard from the north", "the sky was clear and pale",
           "a soft rain fell on the roofs", "the snow had not yet melted", "the sun warmed the stones",
           "the clouds hung low over the hills", "the air smelled of salt and bread"]
OBJECTS = ["a brass key", "a letter with no name", "a basket of apples", "a broken lantern", "an old map",
           "a wooden flute", "a jar of honey", "a red scarf", "a silver coin", "a book of songs",
           "a lost goat", "a small boat"]
FEELINGS = ["glad", "worried", "tired", "curious", "proud", "afraid", "patient", "restless", "quiet", "hopeful"]
ACTIONS = ["mended the nets", "swept the floor", "counted the sacks of flour", "wound the great clock",
           "fed the hens", "carried water from the well", "tuned the old piano", "painted the door blue",
           "stacked wood for the winter", "read the newspaper twice", "wrote a long letter", "baked three loaves"]
SAYINGS = ["The sea keeps what it is given", "A slow river still reaches the sea", "Bread shared is bread doubled",
           "Every lamp was once a spark", "The hill is steep only for those who stop", "Mend the net before the storm",
           "A quiet word travels far", "Nobody counts the stairs on the way down"]
SINCE = ["dawn", "last winter", "the storm", "market day", "the wedding", "the big tide", "yesterday",
         "the summer fair"]
ENDINGS = ["and that was the end of the matter", "and nobody spoke of it again",
           "and the whole village laughed about it for a week", "and from then on the door was never locked",
           "and the lamp burned until morning", "and they walked home together in the dark",
           "and the next day everything was as before, only a little kinder"]


def _sentence(r, who, other):
    trade = r.choice(TRADES)
    forms = [
        lambda: f"{r.choice(TIMES)}, {r.choice(WEATHER)}.",
        lambda: f"{who} the {trade} {r.choice(ACTIONS)} and felt {r.choice(FEELINGS)}.",
        lambda: f"{who} walked down to {r.choice(PLACES)} and found {r.choice(OBJECTS)}.",
        lambda: f"\"Have you seen {r.choice(OBJECTS)}?\" asked {who}. \"Not since {r.choice(SINCE)},\" "
                f"said {other}.",
        lambda: f"{other} was {r.choice(FEELINGS)}, because {r.choice(WEATHER)}.",
        lambda: f"\"{r.choice(SAYINGS)},\" said {other}, and {who} nodded.",
        lambda: f"They met at {r.choice(PLACES)}, where {r.choice(WEATHER)}.",
        lambda: f"{who} gave {other} {r.choice(OBJECTS)}, {r.choice(ENDINGS)}.",
        lambda: f"Nobody in the village knew why {who} {r.choice(ACTIONS)} every {r.choice(['morning', 'evening', 'Sunday'])}.",
    ]
    return r.choice(forms)()


def generate(n_tales=260, seed=7):
    """The generated tales, one paragraph each, separated by blank lines."""
    r = random.Random(seed)
    tales = []
    for _ in range(n_tales):
        who, other = r.sample(NAMES, 2)
        body = " ".join(_sentence(r, who, other) for _ in range(r.randint(3, 6)))
        tales.append(body)
    return "\n\n".join(tales) + "\n"


def corpus():
    """tiny_tales.txt followed by the generated tales."""
    with open(os.path.join(HERE, "tiny_tales.txt"), encoding="utf-8") as f:
        return f.read() + "\n" + generate()


if __name__ == "__main__":
    print(corpus())
