"""Players: who a caller is (guest accounts, a frontend's JWTs), their ratings, and matchmaking."""
