"""Solutions to the course's exercises, one module per lesson (``lessonNN``).

They live apart from the lesson notebooks so a teacher can hand the lessons out
without answers (``graphkit lessons DIR`` copies no solutions unless asked to).
"""
