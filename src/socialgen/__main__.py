from socialgen.cli import main

main()
