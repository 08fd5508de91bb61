"""SW5e starship combat: ship initiative, power dice, shields, crew turns."""
