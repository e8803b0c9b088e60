"""Teaching: the lesson engine, the learning lesson, the algorithms' texts, the sensitivity sweeps."""
