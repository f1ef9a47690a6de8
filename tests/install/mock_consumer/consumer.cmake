# Copied to CMakeLists.txt in a scratch folder by install_test.sh (named
# otherwise here, so that tests/CMakeLists.txt does not take this folder for
# one of its own).
# A game server's unit test built against the installed package: it links
# sator::client_mocks and tests game logic without a server (run by
# tests/install/install_test.sh).
cmake_minimum_required(VERSION 3.25)
project(sator_mock_consumer LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)

find_package(sator 0.1 CONFIG REQUIRED)
find_package(GTest CONFIG REQUIRED)

add_executable(game_logic_test game_logic_test.cc)
target_link_libraries(game_logic_test PRIVATE sator::client
                      sator::client_mocks GTest::gmock_main)
