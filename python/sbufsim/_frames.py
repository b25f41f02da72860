"""pandas DataFrames of the statistics, when pandas is installed (Debian: python3-pandas).
Nothing here is imported until a frame is asked for."""


def pandas():
    try:
        import pandas as pd
    except ImportError as error:
        raise ImportError(
            "DataFrames need pandas (apt-get install python3-pandas); the same rows are plain "
            "dicts without it: Result.table(section), SweepTable.rows"
        ) from error
    return pd


def frame(rows, index=None):
    """A DataFrame of a list of dicts, indexed by column `index` when given."""
    df = pandas().DataFrame(rows)
    if index is not None and index in df.columns:
        df = df.set_index(index)
    return df
