from socialgen.cli.main import main

main()
